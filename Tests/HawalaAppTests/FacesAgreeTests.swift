import Foundation
@testable import HawalaApp
import HawalaConnect
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaNostr
@testable import HawalaOnChain
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Testing

/// The CLI and the app on the same inputs take the same decisions: a rule lives once, in the
/// library, and neither face decides on its own. Each case runs the real `hawala` binary on a
/// home like the app's and the app's handler through HTTP, and compares what each decided —
/// done or refused, and the library's words for it.
extension AppSecurityTests {
    /// A home like `withApp`'s (the "abandon … about" wallet, named alike, under "correct horse"),
    /// for the CLI, with the password and any other secrets in files.
    struct CLIHome {
        let home: WalletHome
        let secrets: URL

        init(wallet: Bool = true, network: Network = .mainnet) throws {
            home = temporaryHome()
            secrets = temporaryFolder("faces-secrets")
            try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
            try write("password", "correct horse")
            if wallet {
                let store = try WalletStore(home: home, create: true)
                let keyring = try store.newKeyring(password: password("correct horse"), parameters: fastKDF())
                try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: AppSecurityTests.hostileName,
                              network: network, keyring: keyring)
            }
        }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            let url = secrets.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }

        func path(_ name: String) -> String { secrets.appendingPathComponent(name).path }

        /// `hawala …` on this home, without a terminal (as a script runs it).
        func run(_ arguments: [String]) throws -> CLIResult {
            try CLI.run(arguments, environment: ["HAWALA_HOME": home.directory.path], newSession: true)
        }

        func walletNames() throws -> [String] { try WalletStore(home: home, create: false).list().map(\.name).sorted() }
    }

    /// A new wallet's length: the same lengths accepted and refused by both.
    @Test func facesAgreeOnNewWallets() async throws {
        for words in ["12", "24", "15", "18", "13", "twelve"] {
            let cli = try CLIHome(wallet: false)
            let byCLI = try cli.run(["wallet", "create", "--words", words, "--skip-backup", "--password-file", cli.path("password")])
            try await withApp(wallet: false) { app, browser, _ in
                var browser = browser
                browser.cookie = Browser.sessionID(try await browser.send(.get, app.startPath).headers)
                let csrf = try #require(Browser.csrf(try await browser.send(.get, "/create").body))
                let byApp = try await browser.send(.post, "/create", form: ["csrf": csrf, "words": words, "network": "mainnet",
                                                                            "password": "correct horse", "repeat": "correct horse"])
                #expect((byCLI.status == 0) == (byApp.status == 303), "\(words) words: CLI \(byCLI.status) \(byCLI.stderr), app \(byApp.status)")
                if byCLI.status != 0, let n = Int(words) {
                    let said = WalletError.wordCountNotOffered(n, offered: WalletStore.newWordCounts).description
                    #expect(byCLI.stderr.contains(said) && byApp.body.contains(said.sentence), "\(words): the library's words in both")
                }
            }
        }
    }

    /// Importing a backup of the wallet both homes already hold: no choice is refused by both
    /// (nothing imported), and each choice gives both the same outcome, in the same words.
    @Test func facesAgreeOnImportConflicts() async throws {
        let source = try CLIHome()
        let (payload, _) = try BackupExporter.payload(store: try WalletStore(home: source.home, create: false),
                                                     keyring: try WalletStore(home: source.home, create: false).unlock(password: password("correct horse")),
                                                     names: nil, app: "test")
        let file = temporaryFolder("faces-backup", suffix: ".hawala")
        try BackupFile.write(payload, to: file, password: password(Self.backupPassword), cost: .floor)
        for choice in [nil, "skip", "keep-both", "replace"] as [String?] {
            let cli = try CLIHome()
            try cli.write("backup-password", Self.backupPassword)
            let byCLI = try cli.run(["backup", "import", file.path, "--backup-password-file", cli.path("backup-password"), "--password-file", cli.path("password")]
                                    + (choice.map { ["--on-conflict", $0] } ?? []))
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let csrf = try #require(Browser.csrf(try await browser.send(.get, "/backups").body))
                let form = Self.multipart(["backupPassword": Self.backupPassword], file: Array(try Data(contentsOf: file)), filename: "b.hawala")
                #expect(try await browser.send(.post, "/backups/import?csrf=\(csrf)", raw: form.body, contentType: form.contentType).status == 303)
                let byApp = try await browser.send(.post, "/backups/import/confirm", form: ["csrf": csrf].merging(choice.map { ["policy-0": $0] } ?? [:]) { $1 })
                #expect((byCLI.status == 0) == (byApp.status == 200), "\(choice ?? "no choice"): CLI \(byCLI.status) \(byCLI.stderr), app \(byApp.status)")
                if byCLI.status == 0 {
                    let outcome = try #require(byCLI.stdout.split(separator: "\n").last.map(String.init))
                    #expect(byApp.body.contains(Self.html(outcome.sentence)), "\(choice!): \(outcome)")
                } else {
                    #expect(byCLI.stderr.contains("nothing was imported") && byApp.body.contains("nothing was imported"))
                }
                #expect(try cli.walletNames() == (try WalletStore(home: app.home, create: false).list().map(\.name).sorted()),
                        "\(choice ?? "no choice"): the same wallets after")
            }
        }
    }

    /// SLIP-39 shares of the wallet both homes hold: the reading that is that wallet is refused by
    /// both, the other reading saved by both; a share with a wrong word is pointed out by both at
    /// the same line and word, its words echoed by neither.
    @Test func facesAgreeOnShamirRestores() async throws {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "Main", network: .mainnet, keyring: keyring)
        let split = try store.shamirSplit(wallet, groupThreshold: 1, groups: [SLIP39.Group(threshold: 2, count: 3)], passphrase: SecretBytes([]), keyring: keyring)
        let shares = split.shares[0].map { $0.words.joined(separator: " ") }
        var typo = shares[1].split(separator: " ").map(String.init)
        typo[4] = "qqqq"
        for (reading, text) in [("bip39", shares[0] + "\n" + shares[1]), ("seed", shares[0] + "\n" + shares[1]), ("bip39", shares[0] + "\n" + typo.joined(separator: " "))] {
            let cli = try CLIHome()
            let file = try cli.write("shares", text)
            let byCLI = try cli.run(["backup", "shamir", "recover", "--shares-file", file, "--as", reading, "--name", "Restored", "--yes",
                                     "--password-file", cli.path("password")])
            try await withApp { app, browser, _ in
                var browser = browser
                try await logIn(app, &browser)
                let csrf = try #require(Browser.csrf(try await browser.send(.get, "/restore/shares").body))
                let read = try await browser.send(.post, "/restore/shares", form: ["csrf": csrf, "shares": text, "network": "mainnet"])
                var saved = false
                if read.status == 200 {
                    let save = try await browser.send(.post, "/restore/shares/save", form: ["csrf": csrf, "reading": reading == "bip39" ? "0" : "1", "name": "Restored"])
                    saved = save.status == 303
                    if !saved { #expect(save.body.contains("already exists") && byCLI.stderr.contains("already exists"), "\(reading): \(byCLI.stderr)") }
                } else {
                    #expect(read.body.contains("Line 2: word 5 is not a SLIP-39 word") && byCLI.stderr.contains("line 2: word 5 is not a SLIP-39 word"), "\(byCLI.stderr)")
                    #expect(!read.body.contains("qqqq") && !byCLI.stderr.contains("qqqq"))
                }
                #expect((byCLI.status == 0) == saved, "\(reading): CLI \(byCLI.status) \(byCLI.stderr), app \(read.status)")
            }
        }
    }

    /// Paying on devnet: a comment on an invoice is refused by both (the library's rule), an
    /// invoice is paid by both, and the same invoice again sends nothing in either, in the same
    /// words.
    @Test func facesAgreeOnPayments() async throws {
        let ledger = temporaryFolder("faces-devnet").appendingPathComponent("ledger").path
        let other = try OtherNode(ledger: ledger)
        let payee = try await other.session()
        let cli = try CLIHome()
        #expect(try cli.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        #expect(try cli.run(["ln", "devnet", "fund", "10000", "--password-file", cli.path("password")]).status == 0)
        try await withApp { app, browser, _ in
            var browser = browser
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            _ = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "10000"])
            var (lastCLIInvoice, lastAppInvoice) = ("", "")
            for (label, comment) in [("with a comment", "thanks"), ("paid", nil), ("again", nil)] as [(String, String?)] {
                // Each face pays an invoice of its own (a wallet's history is its own), made alike.
                let forCLI = try await payee.receive(ReceiveRequest(amountSats: 100, description: "cli \(label)")).response.invoice
                let forApp = try await payee.receive(ReceiveRequest(amountSats: 100, description: "app \(label)")).response.invoice
                let cliInvoice = label == "again" ? lastCLIInvoice : forCLI
                let appInvoice = label == "again" ? lastAppInvoice : forApp
                let byCLI = try cli.run(["ln", "pay", cliInvoice, "--yes", "--password-file", cli.path("password")] + (comment.map { ["--comment", $0] } ?? []))
                let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": appInvoice].merging(comment.map { ["comment": $0] } ?? [:]) { $1 })
                var paid = false
                var appWords = preview.body
                if preview.status == 200, preview.body.contains("Confirm the payment") {
                    let pay = try await browser.send(.post, "/lightning/pay", form: ["csrf": csrf, "password": "correct horse"])
                    paid = pay.body.contains("Paid")
                    appWords = pay.body
                }
                switch label {
                case "with a comment":
                    #expect(byCLI.status == 2 && preview.status == 400 && appWords.contains("comment is for Lightning addresses"), "\(byCLI.stderr)")
                case "paid":
                    #expect(byCLI.status == 0 && paid, "CLI \(byCLI.status) \(byCLI.stderr)")
                    (lastCLIInvoice, lastAppInvoice) = (cliInvoice, appInvoice)
                default:
                    let said = try #require(EarlierPayment.paid(samplePaid()).headline.split(separator: ":").first.map(String.init))
                    #expect(byCLI.status == 0 && byCLI.stderr.contains(said), "\(byCLI.stderr)")
                    #expect(!paid && appWords.contains(said.capitalizedFirst), "the app sent again, or said otherwise")
                }
            }
        }
        try await payee.close()
    }

    /// Withdrawing on devnet: both faces price the same speeds alike (the library's preview
    /// rows), refuse the same address of another network, and both leave nothing with
    /// "everything".
    @Test func facesAgreeOnWithdrawals() async throws {
        let (ledger, cli) = try Self.cliOnDevnet("faces-onchain", funded: 30_000)
        let pw = ["--password-file", cli.path("password")]
        let elsewhere = Self.elsewhere
        try await withApp { app, browser, _ in
            var browser = browser
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            _ = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "30000"])
            // The same words: the two faces are one node here (the same seed on one ledger), so
            // each previews the same balance.
            let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "amount": "5,000"])
            let byCLI = try cli.run(["ln", "pay", elsewhere, "--amount", "5,000", "--speed", "slow", "--yes"] + pw)
            for speed in ["fast", "medium", "slow"] {
                let cliLine = try #require(byCLI.stderr.split(separator: "\n").first { $0.contains("\(speed):") }).split(separator: ":", maxSplits: 1)[1]
                    .trimmingCharacters(in: .whitespaces)
                #expect(preview.body.contains(Self.html(cliLine)), "\(speed): \(cliLine)")
            }
            let wrong = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
            let cliWrong = try cli.run(["ln", "pay", wrong, "--amount", "1000", "--yes"] + pw)
            let appWrong = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": wrong, "amount": "1000"])
            let words = LightningError.wrongAddress(wrong, network: .regtest, backendName: "devnet").description
            #expect(cliWrong.status == 1 && cliWrong.stderr.contains(words) && appWrong.status == 400 && appWrong.body.contains(Self.html(words)))
            _ = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "all": "on"])
            let all = try await browser.send(.post, "/lightning/pay-onchain", form: ["csrf": csrf, "speed": "medium", "password": "correct horse"])
            #expect(all.body.contains("Sent: waiting for confirmation"))
            let cliBalance = try JSONSerialization.jsonObject(with: Data(try cli.run(["ln", "balance", "--json"]).stdout.utf8)) as? [String: Any]
            #expect(cliBalance?["balanceMsat"] as? Int == 0, "everything: nothing stays")
            let nothing = try cli.run(["ln", "pay", elsewhere, "--all", "--yes"] + pw)
            let appNothing = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "all": "on"])
            #expect(nothing.status == 1 && nothing.stderr.contains("not possible: what would arrive is below 546 sat")
                    && appNothing.body.contains("not possible: what would arrive is below 546 sat"), "\(nothing.stderr)")
        }
    }

    /// The send rules live once (`SendRequest`, `OnChainQuote.defaultSpeed`, the withdrawal's key,
    /// `PaymentLimits.feeRates`): the same input is refused by both faces, for the same reason
    /// (each in its own words), and what both send is chosen alike.
    @Test func facesAgreeOnSendRules() async throws {
        let (ledger, cli) = try Self.cliOnDevnet("faces-rules", funded: 30_000)
        let payee = try await OtherNode(ledger: ledger).session()
        let pw = ["--password-file", cli.path("password")]
        let elsewhere = Self.elsewhere
        try await withApp { app, browser, _ in
            var browser = browser
            let csrf = try await onDevnet(app, &browser, ledger: ledger)
            let invoice = try await payee.receive(ReceiveRequest(amountSats: nil, description: "rules")).response.invoice
            // (label, input, amount, everything, comment, the CLI's words, the app's words)
            let refused: [(String, String, String?, Bool, String?, String, String)] = [
                ("zero", invoice, "0", false, nil, "--amount must be at least 1 sat", "The amount must be at least 1 sat."),
                ("everything on an invoice", invoice, nil, true, nil, "--all and --speed are for a Bitcoin address", "“Send everything” is for a Bitcoin address"),
                ("a comment on-chain", elsewhere, "1000", false, "hi", "--comment is for Lightning addresses", "A comment is for Lightning addresses"),
                ("a comment on an invoice", invoice, "1000", false, "hi", "--comment is for Lightning addresses", "A comment is for Lightning addresses"),
                ("no amount on-chain", elsewhere, nil, false, nil, "how much? give --amount SATS", "Type how much to send in sat"),
                ("an amount and everything", elsewhere, "1000", true, nil, "give one of --amount or --all", "Type an amount or tick “Send everything”, not both."),
            ]
            for (label, input, amount, everything, comment, cliWords, appWords) in refused {
                var args = ["ln", "pay", input, "--yes"] + pw
                if let amount { args += ["--amount", amount] }
                if everything { args.append("--all") }
                if let comment { args += ["--comment", comment] }
                let byCLI = try cli.run(args)
                var form = ["csrf": csrf, "input": input]
                if let amount { form["amount"] = amount }
                if everything { form["all"] = "on" }
                if let comment { form["comment"] = comment }
                let byApp = try await browser.send(.post, "/lightning/send", form: form)
                #expect(byCLI.status == 2 && byCLI.stderr.contains(cliWords), "\(label): CLI \(byCLI.status) \(byCLI.stderr)")
                #expect(byApp.status == 400 && byApp.body.contains(Self.html(appWords)), "\(label): app \(byApp.status)")
            }

            // Nothing pasted, and more than any invoice or address can be: the library refuses
            // both (`PaymentInput`), each face in its words.
            let pasted: [(String, String, PaymentInputError, String)] = [
                ("nothing", "  ", .empty, "Paste an invoice, a Lightning address, an LNURL or a bitcoin: link."),
                ("too long", String(repeating: "lnbc1", count: 3_000), .tooLong, "That is too long to be an invoice or an address."),
            ]
            for (label, input, error, appWords) in pasted {
                let byCLI = try cli.run(["ln", "pay", input, "--yes"] + pw)
                let byApp = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": input])
                #expect(byCLI.status == 1 && byCLI.stderr.contains(error.description), "\(label): CLI \(byCLI.status) \(byCLI.stderr)")
                #expect(byApp.status == 400 && byApp.body.contains(Self.html(appWords)), "\(label): app \(byApp.status)")
            }

            // A fee rate outside 1…10,000 sat/vB: refused by both, in the library's words.
            let rateWords = PaymentLimit.feeRate.description
            let cliRate = try cli.run(["ln", "exit", "check", "--fee-rate", "20000"])
            let appRate = try await browser.send(.post, "/lightning/exit/review", form: ["csrf": csrf, "feeRate": "20000"])
            #expect(cliRate.status != 0 && cliRate.stderr.contains(rateWords), "\(cliRate.stderr)")
            #expect(appRate.status == 400 && appRate.body.contains(Self.html(rateWords.capitalizedFirst)), "app \(appRate.status)")

            // Medium not covered, slow covered: both choose slow when no speed is given.
            let balance = try #require(try JSONSerialization.jsonObject(with: Data(try cli.run(["ln", "balance", "--json"]).stdout.utf8)) as? [String: Any])
            let balanceSat = try #require(balance["balanceMsat"] as? Int) / 1000
            let amount = String(balanceSat - 400)
            let preview = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "amount": amount])
            #expect(preview.body.contains(#"value="slow" checked"#) && preview.body.contains(#"value="medium" disabled"#), "\(preview.body.suffix(2000))")
            let sent = try cli.run(["ln", "pay", elsewhere, "--amount", amount, "--yes", "--json"] + pw)
            let cliPayment = try #require(try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any], "\(sent.stderr)")
            #expect(sent.status == 0 && cliPayment["feeMsat"] as? Int == 282_000, "slow's fee: \(sent.stdout) \(sent.stderr)")

            // A withdrawal's key is made alike: `onchain:` and 32 hex digits.
            _ = try await browser.send(.post, "/lightning/fund", form: ["csrf": csrf, "amount": "5000"])
            _ = try await browser.send(.post, "/lightning/send", form: ["csrf": csrf, "input": elsewhere, "amount": "1000"])
            let appSent = try await browser.send(.post, "/lightning/pay-onchain", form: ["csrf": csrf, "speed": "slow", "password": "correct horse"])
            #expect(appSent.body.contains("Sent: waiting for confirmation"), "\(appSent.body.suffix(1500))")
            func withdrawalKeys(_ store: WalletStore) throws -> [String] {
                let wallet = try #require(try store.current())
                return try store.payments(walletID: wallet.id).filter(\.isOnChain).compactMap(\.idempotencyKey)
            }
            let keys = try withdrawalKeys(try await app.store.get()) + withdrawalKeys(try WalletStore(home: cli.home, create: false))
            #expect(keys.count == 2 && keys.allSatisfy { $0.hasPrefix("onchain:") && $0.count == 40 && $0.dropFirst(8).allSatisfy(\.isHexDigit) }, "\(keys)")
        }
        try await payee.close()
    }

    /// A connection that asks for approval: the threshold and the wait read alike, the same
    /// wait refused in the same words; the CLI answers a payment the app would show.
    @Test func facesAgreeOnApproval() async throws {
        let cli = try CLIHome()
        let pw = ["--password-file", cli.path("password")]
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/connections").body))
            for (wait, words) in [("1h", ConnectionInput.Error.approvalWait("1h").description), ("5s", ConnectionInput.Error.approvalWait("5s").description), ("5m", nil)] {
                let byCLI = try cli.run(["connect", "new", "careful", "--approve-above", "3,000", "--approval-wait", wait, "--relay", "ws://127.0.0.1:7447", "--json"] + pw)
                let byApp = try await browser.send(.post, "/connections/new", form: [
                    "csrf": csrf, "name": "careful", "for-nwc": "on", "may-pay": "on", "budget": "10000", "renewal": "daily", "maxPayment": "",
                    "approveAbove": "3,000", "approvalWait": wait, "expiry": "never", "relays": "ws://127.0.0.1:7447", "password": "correct horse"])
                if let words {
                    #expect(byCLI.status != 0 && byCLI.stderr.contains(words), "CLI \(byCLI.status) \(byCLI.stderr)")
                    #expect(byApp.status == 400 && byApp.body.contains(Self.html(words.capitalizedFirst)), "app \(byApp.status)")
                } else {
                    let made = try JSONSerialization.jsonObject(with: Data(byCLI.stdout.utf8)) as? [String: Any]
                    #expect(byCLI.status == 0 && made?["approveAboveSats"] as? Int == 3_000 && made?["approvalWaitSeconds"] as? Int == 300, "\(byCLI.stdout)")
                    #expect(byApp.status == 200, "\(byApp.body.suffix(1500))")
                }
            }
            let appStore = try await app.store.get()
            let made = try appStore.connection(named: "careful", walletID: try #require(try appStore.current()).id)
            #expect(made.approveAbove == 3_000 && made.approvalWait == 300)
            let list = try await browser.send(.get, "/connections").body
            #expect(list.contains("Asks your approval above 3,000 sat (waits 5 min)."), "\(list.suffix(3000))")
            // The CLI's side: a payment waiting, listed, answered once.
            let store = try WalletStore(home: cli.home, create: false)
            let connection = try store.connection(named: "careful", walletID: try #require(try store.current()).id)
            let asked = try store.askApproval(ApprovalQuestion(payee: "bob@example.com", amount: 4_000_000, fee: 3_000, total: 4_003_000, description: "job 7",
                                                               paymentKey: "connect:\(connection.id):r1", paymentHash: nil),
                                              connection: connection)
            let listed = try cli.run(["connect", "approvals"])
            #expect(listed.status == 0 && listed.stdout.contains("\(asked.id.prefix(8))  careful: Pay 4,000 sat to bob@example.com (fee 3 sat, 4,003 sat in all)?"), "\(listed.stdout)")
            #expect(try cli.run(["connect", "approve", "zz"]).stderr.contains("no payment waits for approval under \"zz\""))
            let approved = try cli.run(["connect", "approve", String(asked.id.prefix(8))] + pw)
            #expect(approved.status == 0 && approved.stdout.contains("approved"), "\(approved.stderr)")
            let again = try cli.run(["connect", "decline", asked.id])
            #expect(again.status == 1 && again.stderr.contains("this payment was approved already"), "\(again.stderr)")
            #expect((try JSONSerialization.jsonObject(with: Data(try cli.run(["connect", "approvals", "--json"]).stdout.utf8)) as? [Any])?.isEmpty == true)
        }
    }

    /// A program's connection: the same limits read alike (`ConnectionInput`), the same relays
    /// refused, the same name refused twice; what each made lists the same.
    @Test func facesAgreeOnConnections() async throws {
        let cli = try CLIHome()
        let pw = ["--password-file", cli.path("password")]
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let empty = try await browser.send(.get, "/connections").body
            #expect(!empty.contains("service-status"), "no connection needs the NWC service yet")
            let csrf = try #require(Browser.csrf(empty))
            let relay = "ws://127.0.0.1:7447"
            let cases: [(label: String, budget: String, renewal: String, max: String, relay: String, words: String?)] = [
                ("no budget", "lots", "daily", "", relay, "a budget is sats or an amount of a currency and a renewal"),
                ("remote ws", "5000", "daily", "", "ws://relay.example.com", RelaySession.Error.plainWebSocket("ws://relay.example.com").description),
                ("not a relay", "5000", "daily", "", "https://relay.example.com", RelaySession.Error.invalidURL("https://relay.example.com").description),
                ("made", "5,000", "weekly", "2000", relay, nil),
                ("taken", "5000", "weekly", "", relay, WalletError.connectionNameTaken("agent").description),
            ]
            for c in cases {
                let byCLI = try cli.run(["connect", "new", "agent", "--budget", c.budget + "/" + c.renewal, "--relay", c.relay, "--json"]
                                        + (c.max.isEmpty ? [] : ["--max-payment", c.max]) + pw)
                let byApp = try await browser.send(.post, "/connections/new", form: [
                    "csrf": csrf, "name": "agent", "for-nwc": "on", "may-pay": "on", "may-receive": "on", "may-balance": "on", "budget": c.budget, "renewal": c.renewal,
                    "maxPayment": c.max, "expiry": "never", "relays": c.relay, "password": "correct horse"])
                if let words = c.words {
                    #expect(byCLI.status != 0 && byCLI.stderr.contains(words), "\(c.label): CLI \(byCLI.status) \(byCLI.stderr)")
                    #expect(byApp.status == 400 && byApp.body.contains(Self.html(words.capitalizedFirst)), "\(c.label): app \(byApp.status)")
                } else {
                    #expect(byCLI.status == 0 && byCLI.stdout.contains("nostr+walletconnect://"), "\(c.label): \(byCLI.stderr)")
                    #expect(byApp.status == 200 && byApp.body.contains("nostr+walletconnect://") && byApp.body.contains("is ready"), "\(c.label)")
                    #expect(byApp.body.contains("At most a payment</dt><dd>2,000 sat"), "the ready page shows the maximum")
                }
            }
            let appStore = try await app.store.get()
            let mine = try #require(try appStore.current())
            let appMade = try appStore.connection(named: "agent", walletID: mine.id)
            let cliStore = try WalletStore(home: cli.home, create: false)
            let cliMade = try cliStore.connection(named: "agent", walletID: try #require(try cliStore.current()).id)
            #expect(appMade.budget == cliMade.budget && appMade.renewal == .weekly && cliMade.renewal == .weekly)
            #expect(appMade.maxPayment == cliMade.maxPayment && appMade.maxPayment == 2000 && appMade.permissions == cliMade.permissions)
            #expect(appMade.relays == [relay] && cliMade.relays == [relay])
            // A program's request: shown, refused alike when a limit is raised, accepted alike when lowered.
            let program = String(repeating: "cd", count: 32)
            let request = "nostr+walletauth://\(program)?relay=ws%3A%2F%2F127.0.0.1%3A7447&name=job-runner&request_methods=pay_invoice%20get_balance&max_amount=8000&budget_renewal=weekly"
            let shown = try await browser.send(.post, "/connections/request", form: ["csrf": csrf, "request": request])
            #expect(shown.status == 200)
            let filled = ConnectionFormView(try ConnectionProposal(try WalletAuthRequest(request)), text: request, now: Date(), timeZone: .current)
            #expect(filled.askedNote?.hasPrefix("“job-runner” asks to connect: it may pay invoices, see the balance; at most 8,000 sat a week") == true, "\(filled.askedNote ?? "")")
            #expect(filled.budget == "8,000" && filled.renewal == "weekly" && filled.permissions == [.pay, .balance])
            func accept(_ budget: String) async throws -> (cli: CLIResult, app: (status: Int, headers: [(String, String)], body: String)) {
                let byCLI = try cli.run(["connect", "accept", request, "--budget", budget.replacingOccurrences(of: ",", with: "") + "/weekly", "--yes", "--json"] + pw)
                let byApp = try await browser.send(.post, "/connections/new", form: [
                    "csrf": csrf, "request": request, "name": "job-runner", "for-nwc": "on", "may-pay": "on", "may-balance": "on", "budget": budget,
                    "renewal": "weekly", "maxPayment": "", "expiry": "never", "relays": relay, "password": "correct horse"])
                return (byCLI, byApp)
            }
            let raised = try await accept("9,000")
            let words = ConnectionProposal.Refusal.raisesBudget(proposed: 8_000).description
            #expect(raised.cli.status == 1 && raised.cli.stderr.contains(words), "\(raised.cli.stderr)")
            #expect(raised.app.status == 400 && raised.app.body.contains(Self.html(words.capitalizedFirst)), "\(raised.app.body.suffix(2000))")
            let lowered = try await accept("6,000")
            #expect(lowered.cli.status == 0 && lowered.app.status == 200 && lowered.app.body.contains("Accepted. The program keeps its own key"), "\(lowered.cli.stderr)")
            let fromApp = try appStore.connection(named: "job-runner", walletID: mine.id)
            let fromCLI = try cliStore.connection(named: "job-runner", walletID: try #require(try cliStore.current()).id)
            #expect(fromApp.clientPublicKey == program && fromCLI.clientPublicKey == program && fromApp.budget == 6_000 && fromCLI.budget == 6_000)
            #expect(fromApp.permissions == [.pay, .balance] && fromCLI.permissions == [.pay, .balance] && fromApp.renewal == .weekly)
            let list = try await browser.send(.get, "/connections").body
            #expect(list.contains("hawala connect serve"), "an NWC connection needs the service")
            #expect(list.contains(#"<span class="tag">NWC</span>"#), "the card says how the program reaches it")
        }
    }

    /// Real bitcoin only by choice: Spark with real bitcoin for a testnet wallet is refused by
    /// both faces in the library's words (nothing saved); Spark's test network and devnet are
    /// not refused for the network's sake.
    @Test func facesAgreeOnRealBitcoinForATestnetWallet() async throws {
        let cli = try CLIHome(network: .testnet)
        let byCLI = try cli.run(["ln", "config", "--backend", "spark:mainnet"])
        let words = LightningSessionError.realBitcoinOnTestWallet(wallet: "x").description
        let tail = String(words[words.range(of: "so its Lightning")!.lowerBound...])
        #expect(byCLI.status != 0 && byCLI.stderr.contains(tail), "CLI \(byCLI.status) \(byCLI.stderr)")
        #expect(try cli.run(["ln", "config", "--json"]).stdout.contains("spark:mainnet") == false, "nothing saved by the CLI")
        let oneOff = try cli.run(["ln", "balance", "--backend", "spark:mainnet", "--password-file", cli.path("password")])
        #expect(oneOff.status != 0 && oneOff.stderr.contains(tail), "a one-off backend: \(oneOff.stderr)")
        try await withApp(network: .testnet) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/lightning").body))
            let byApp = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "choice": "spark:mainnet", "apiKey": "brz-test-key"])
            #expect(byApp.status == 400 && byApp.body.contains(Self.html(tail)), "app \(byApp.status)")
            let store = try await app.store.get()
            #expect(try store.setting(LightningWallet.SettingKey.backend, walletID: try #require(try store.current()).id) == nil, "nothing saved by the app")
        }
        // What each network offers: real bitcoin to a mainnet wallet only.
        #expect(!LightningChoice.offered(sparkAvailable: true, network: .testnet).contains(.sparkMainnet))
        #expect(LightningChoice.offered(sparkAvailable: true, network: .testnet) == [.devnet, .sparkTest])
        #expect(LightningChoice.offered(sparkAvailable: true, network: .mainnet) == LightningChoice.allCases)
        #expect(throws: LightningSessionError.realBitcoinOnTestWallet(wallet: "w")) { try BackendSpec.spark(.mainnet).check(for: .testnet, wallet: "w") }
        for spec in [BackendSpec.spark(.regtest), .devnet(path: "/x")] { try spec.check(for: .testnet, wallet: "w") }
    }

    /// Backup before real money: on Spark with real bitcoin, a wallet whose words are not
    /// checked is held back in both faces, and the acceptance is the same words in both — any
    /// other text refused in the library's words, nothing saved.
    @Test func facesAgreeOnBackupBeforeRealMoney() async throws {
        let cli = try CLIHome()
        #expect(try cli.run(["ln", "config", "--backend", "spark:mainnet"]).stderr.contains("is on real bitcoin and its words are not written down and checked yet"))
        let refusal = BackupBeforeRealMoney.Refusal.notAccepted.description
        try await withApp { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            let store = try await app.store.get()
            let wallet = try #require(try store.current())
            try store.setSetting(LightningWallet.SettingKey.backend, to: "spark:mainnet", walletID: wallet.id)
            let page = try await browser.send(.get, "/lightning").body
            #expect(page.contains("Back up before real bitcoin") && page.contains("name=\"acceptRisk\""), "\(page.suffix(1500))")
            let csrf = try #require(Browser.csrf(page))
            for typed in ["yes", "I accept"] {
                let byCLI = try cli.run(["ln", "config", "--accept-risk", typed])
                let byApp = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "acceptRisk": typed])
                #expect(byCLI.status != 0 && byCLI.stderr.contains(refusal), "CLI: \(byCLI.stderr)")
                #expect(byApp.status == 400 && byApp.body.contains(Self.html(refusal.sentence)), "app \(byApp.status)")
            }
            #expect(BackupBeforeRealMoney.riskAcceptedAt(wallet: wallet, store: store) == nil)
            let byCLI = try cli.run(["ln", "config", "--accept-risk", "I accept the risk"])
            let byApp = try await browser.send(.post, "/lightning/settings", form: ["csrf": csrf, "acceptRisk": "I accept the risk"])
            #expect(byCLI.status == 0 && !byCLI.stderr.contains("note:"), "CLI: \(byCLI.stderr)")
            #expect(byApp.status == 200 && !byApp.body.contains("Back up before real bitcoin"), "app \(byApp.status)")
            #expect(BackupBeforeRealMoney.riskAcceptedAt(wallet: wallet, store: store) != nil)
        }
    }

    /// An on-chain payment: an address of another chain, a fee rate out of bounds, more than
    /// the coins hold — refused by both faces in the library's words, before any node is asked.
    @Test func facesAgreeOnOnChainPayments() async throws {
        // A node that isn't there: every refusal here comes before the network.
        let node = NodeSettings(kind: .core, location: "http://127.0.0.1:9", auth: .none, chain: "regtest", gapLimit: 20)
        let saveNode = { @Sendable (store: WalletStore) in
            let wallet = try #require(try store.list().first)
            try OnChainStore(store: store, walletID: wallet.id, coin: .litecoin).save(node)
        }
        let cli = try CLIHome(network: .testnet)
        try saveNode(try WalletStore(home: cli.home, create: false))
        let account = OnChainNetwork(coin: .litecoin, kind: .regtest)
        let ownKind = "rltc1qqqqsyqcyq5rqwzqfpg9scrgwpugpzysnrwhxws"  // a Litecoin regtest address, program 00…13
        let cases: [(to: String, amount: String, rate: String, words: String)] = [
            (Self.elsewhere, "100000", "2",
             OnChainError.wrongNetwork(address: Self.elsewhere, itsNetwork: "Bitcoin regtest", account: "\(account)").description),
            (ownKind, "100000", "20000", OnChainError.feeRateOutOfRange(20000).description),
            (ownKind, "100000", "2", OnChainError.insufficientFunds(needed: .zero, available: .zero, unit: "litoshi").description),
        ]
        try await withApp(network: .testnet) { app, browser, _ in
            var browser = browser
            try await logIn(app, &browser)
            try saveNode(try await app.store.get())
            let csrf = try #require(Browser.csrf(try await browser.send(.get, "/chain/litecoin").body))
            for (to, amount, rate, words) in cases {
                // The part of the words both faces must say (the insufficient case's figures depend on the fee).
                let said = String(words.prefix(while: { $0 != ":" }))
                let byCLI = try cli.run(["onchain", "send", "--chain", "litecoin", "--to", to, "--amount", amount, "--fee-rate", rate, "--yes",
                                         "--password-file", cli.path("password")])
                let byApp = try await browser.send(.post, "/chain/litecoin/review", form: ["csrf": csrf, "to": to, "amount": amount, "speed": "custom", "rate": rate])
                #expect(byCLI.status == 1 && byCLI.stderr.contains(said), "CLI \(byCLI.status) \(byCLI.stderr) for \(to) \(rate)")
                #expect(byApp.status == 400 && byApp.body.contains(Self.html(said.capitalizedFirst)),
                        "app \(byApp.status) for \(to) \(rate): \(byApp.body.suffix(2000))")
                #expect(!byApp.body.contains("Wallet password"), "no password asked: nothing to sign")
            }
        }
    }

    /// A regtest address of nobody's here.
    static let elsewhere = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

    /// A CLI home whose wallet is on a new devnet ledger, funded with `sats`.
    static func cliOnDevnet(_ name: String, funded sats: Int) throws -> (ledger: String, cli: CLIHome) {
        let ledger = temporaryFolder(name).appendingPathComponent("ledger").path
        let cli = try CLIHome()
        #expect(try cli.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0)
        #expect(try cli.run(["ln", "devnet", "fund", String(sats), "--password-file", cli.path("password")]).status == 0)
        return (ledger, cli)
    }

    /// `text` as the templates write it.
    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Any paid payment, for the words `EarlierPayment` gives one.
    func samplePaid() -> Payment {
        Payment(id: "p", type: .send, status: .completed, amountMsat: 1, feeMsat: 0, timestamp: Date(), backend: "devnet",
                details: Payment.Details())
    }
}
