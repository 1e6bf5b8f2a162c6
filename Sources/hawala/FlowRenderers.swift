import Foundation
import HawalaCrypto
import HawalaBackup
import HawalaKeys
import HawalaWallet

// The library's flows, rendered at a terminal: each state shown or asked, each answer sent
// back to the flow as its event.

enum BackupFlowRenderer {
    /// The words numbered, one a line, or in rows of four (`grid`).
    static func show(_ words: [String], grid: Bool, on terminal: Terminal) {
        guard grid else {
            for (i, word) in words.enumerated() { terminal.line("\(i + 1). \(word)") }
            return
        }
        let width = (words.map(\.count).max() ?? 8) + 5
        for row in stride(from: 0, to: words.count, by: 4) {
            let cells = (row..<min(row + 4, words.count)).map { i -> String in
                let cell = "\(i + 1). \(words[i])"
                return cell + String(repeating: " ", count: max(1, width - cell.count))
            }
            terminal.line(cells.joined())
        }
    }

    /// Runs the seed backup flow; returns whether the wallet ended backed up.
    /// `grid` shows the words in rows of four (the credential phrase); `allowLater` offers
    /// "back up later" (a wallet) — without it, "later" cancels.
    static func run(_ flow: inout SeedBackupFlow, on terminal: Terminal, grid: Bool = false, allowLater: Bool = true) throws -> Bool {
        while true {
            switch flow.state {
            case .intro:
                terminal.line("")
                terminal.line("Back up your wallet now.")
                terminal.line("Write down these \(flow.wordCount) words, in order, on paper. You'll need them to recover your wallet")
                terminal.line("if this machine is lost, stolen or broken. Anyone who has them can take your funds:")
                terminal.line("never share them, never type them into a website, no screenshots, no photos, no cloud notes.")
                let answer = try terminal.ask("Press Enter to show the words (or type \"later\" to back up later): ")
                flow.send(isLater(answer) ? .skip : .proceed)
            case .showingWords:
                terminal.line("")
                show(flow.words, grid: grid, on: terminal)
                terminal.line("")
                let answer = try terminal.ask(allowLater
                    ? "Press Enter when you have written them down (or \"later\"): "
                    : "Press Enter when you have written them down (\"cancel\" to stop): ")
                terminal.clearScreen()
                flow.send(isLater(answer) ? .skip : .proceed)
            case .quiz(let question, let position):
                if question == 0 { terminal.line("Check your backup: type the words asked for (\(flow.positions.count) questions).") }
                let answer = try terminal.ask("Word #\(position): ")
                flow.send(.answer(answer))
            case .wrongAnswer(let position):
                let answer = try terminal.ask("That is not word #\(position). [r]etry, see the [w]ords again, or back up [l]ater: ")
                switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                case "w", "words": flow.send(.showWordsAgain)
                case "l", "later": flow.send(.skip)
                default: flow.send(.retry)
                }
            case .confirming:
                terminal.line("All correct.")
                let confirmed = try terminal.choose(
                    "Type \"yes\" to confirm the words are written down and kept offline (or \"later\"): ",
                    hint: "Type \"yes\" (or \"y\") once the words are on paper, or \"later\" to back up later."
                ) { answer in Answer.explicitYes(answer) ?? (isLater(answer) ? false : nil) }
                flow.send(confirmed ? .confirm : .skip)
            case .backedUp:
                terminal.line("Backup verified.")
                return true
            case .skipped where !allowLater:
                terminal.line("Cancelled.")
                return false
            case .skipped:
                terminal.line("Not backed up. Until you are, Hawala reminds you; run `hawala wallet verify-backup` once the words are written down.")
                terminal.line("Without them, losing this machine loses the funds.")
                return false
            }
        }
    }

    static func isLater(_ answer: String) -> Bool {
        ["later", "l", "skip", "cancel"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

enum RecoveryRenderer {
    /// Runs the recovery flow in the terminal; returns the flow when done, nil when cancelled.
    /// `refuse` is the overwrite guard, called before the addresses are shown for confirmation.
    static func run(_ flow: inout RecoveryFlow, on terminal: Terminal, network: Network?, passphraseFile: String?,
                    refuse: (RecoveryFlow) throws -> Void) throws -> RecoveryFlow? {
        while true {
            if let problem = flow.problem { terminal.line("  \(problem)") }
            switch flow.state {
            case .choosingNetwork:
                if let network { flow.send(.network(network)); continue }
                terminal.line(RecoveryFlow.networkWarning)
                flow.send(.network(try askNetwork(terminal)))
            case .choosingWordCount:
                // The answer may be the phrase itself: it stays in SecretBytes.
                let answer = try terminal.askShown("How many words (12, 15, 18, 21, 24), or paste the whole phrase: [12] ").trimmingWhitespace()
                if answer.isEmpty {
                    flow.send(.wordCount(12))
                } else if answer.count <= 2, let n = Int(String(decoding: answer.unsafeCopy(), as: UTF8.self)) {
                    flow.send(.wordCount(n))
                } else {
                    flow.send(.word(answer))
                }
            case .enteringWord(let position):
                let answer = try terminal.askShown("Word \(position) of \(flow.wordCount) (a prefix of 4 letters is enough; \"<\" goes back): ")
                if answer.trimmingWhitespace() == SecretBytes(utf8: "<") { flow.send(.back) } else { flow.send(.word(answer)) }
            case .checksumFailed:
                terminal.line("These words do not form a valid \(flow.purpose == .wallet ? "mnemonic" : "phrase") (checksum mismatch): at least one word is wrong.")
                flow.send(try askCorrection(flow, on: terminal, passphraseAndNetwork: false))
            case .enteringPassphrase:
                if let passphraseFile {
                    flow.send(.passphrase(try Input.readPassphrase(file: passphraseFile)))
                } else {
                    flow.send(.passphrase(try terminal.askSecret("BIP39 passphrase, if the wallet has one (Enter for none; input hidden): ")))
                }
            case .confirmingAddresses(let addresses):
                try refuse(flow)
                terminal.line("Compare these first receiving addresses with your records:")
                for a in addresses { terminal.line("  \(a.chain): \(a.address)") }
                if try terminal.confirm("Do they match?") { flow.send(.confirm) } else {
                    terminal.line("Then a word, the passphrase or the network differs.")
                    flow.send(.correct)
                }
            case .reviewing:
                terminal.line("The words as entered (\(flow.network.rawValue)):")
                flow.send(try askCorrection(flow, on: terminal, passphraseAndNetwork: true))
            case .done:
                return flow
            case .cancelled:
                return nil
            }
        }
    }

    static func askNetwork(_ terminal: Terminal) throws -> Network {
        try terminal.choose("Network: [m]ainnet or [t]estnet? [m] ", hint: "Type m for mainnet or t for testnet.") { answer in
            switch answer.lowercased() {
            case "", "m", "mainnet": .mainnet
            case "t", "testnet": .testnet
            default: nil
            }
        }
    }

    /// Which word to correct (or, once the addresses were shown, the passphrase or the network);
    /// only "restart" throws the words away.
    static func askCorrection(_ flow: RecoveryFlow, on terminal: Terminal, passphraseAndNetwork: Bool) throws -> RecoveryFlow.Event {
        for (i, w) in flow.words.enumerated() { terminal.line("\(i + 1). \(w)") }
        let prompt = passphraseAndNetwork
            ? "Number of the word to correct, [p]assphrase, [n] switch to \(flow.network == .mainnet ? "testnet" : "mainnet"), or \"restart\": "
            : "Number of the word to correct, or \"restart\": "
        let count = flow.words.count
        return try terminal.choose(prompt, hint: "Type a number from 1 to \(count)\(passphraseAndNetwork ? ", p, n" : ""), or \"restart\".") { answer in
            if let n = Int(answer), (1...count).contains(n) { return .edit(position: n) }
            let word = answer.lowercased()
            if word == "restart" { return .reject }
            guard passphraseAndNetwork else { return nil }
            if ["p", "passphrase"].contains(word) { return .editPassphrase }
            if ["n", "network"].contains(word) { return .network(flow.network == .mainnet ? .testnet : .mainnet) }
            return nil
        }
    }
}

enum ConflictRenderer {
    /// Asks a policy for each conflict of the import in turn, until the resolution is done.
    static func run(_ resolution: inout ConflictResolution, on terminal: Terminal) throws {
        while case .asking(let name, let conflict) = resolution.state {
            resolution.choose(try ask(name, conflict: conflict, on: terminal))
        }
    }

    /// The choice for one conflict, asked until it is one of those offered. The same wallet
    /// (same words and network) can be skipped or replaced; keeping it twice is not offered.
    static func ask(_ name: String, conflict: BackupImportPlan.Conflict, on terminal: Terminal) throws -> ConflictPolicy {
        let offered = conflict.offered
        let (prompt, hint) = if case .sameWallet(let existing) = conflict {
            ("\"\(name)\" is already here as \"\(existing)\" (same words and network): [s]kip or [r]eplace? ",
             "Type s to keep the wallet here, or r to replace it with the one from the backup.")
        } else {
            ("Another wallet here is named \"\(name)\": [s]kip, [k]eep both (the backup's under a new name), or [r]eplace? ",
             "Type s to skip it, k to keep both, or r to replace the wallet here.")
        }
        return try terminal.choose(prompt, hint: hint) { answer -> ConflictPolicy? in
            let policy: ConflictPolicy? = switch answer.lowercased() {
            case "s", "skip": .skip
            case "k", "keep", "keep-both", "keep both": .keepBoth
            case "r", "replace": .replace
            default: nil
            }
            return policy.flatMap { offered.contains($0) ? $0 : nil }
        }
    }
}

enum ShareEntryRenderer {
    /// SLIP-39 shares typed one by one until an empty line, each checked as it comes (a word
    /// not in the list is named and corrected; the share's group and count are said).
    static func run(on terminal: Terminal) throws -> [SLIP39Share] {
        terminal.line("Type each share (its words separated by spaces; four letters per word are enough). An empty line when done.")
        var flow = ShareEntryFlow()
        while true {
            switch flow.state {
            case .entering(let number):
                if case .refused(.noShares) = flow.send(.share(try terminal.askShown("Share \(number): "))) {
                    throw CLIError("no shares entered; nothing was saved")
                }
            case let .correcting(count, error, suspect):
                terminal.line("  \(error)")
                for (i, w) in flow.wordsBeingCorrected.enumerated() { terminal.line("  \(i + 1). \(w)\(i + 1 == suspect ? "   <- not a SLIP-39 word" : "")") }
                let answer = try terminal.askShown("Number of the word to correct\(suspect.map { " [\($0)]" } ?? ""), the whole share, or \"again\": ")
                    .trimmingWhitespace()
                let short = answer.count <= 5 ? String(decoding: answer.unsafeCopy(), as: UTF8.self) : nil
                if short?.lowercased() == "again" {
                    flow.send(.again)
                } else if let n = short.flatMap({ $0.isEmpty ? suspect : Int($0) }) {
                    guard (1...count).contains(n) else { terminal.line("  Type a number from 1 to \(count), the whole share, or \"again\"."); continue }
                    flow.send(.word(position: n, try terminal.askShown("Word \(n): ")))
                } else if short == nil || !(short?.isEmpty ?? true) {
                    flow.send(.share(answer))
                }
            case .finished:
                return flow.shares
            }
            if let problem = flow.problem { terminal.line("  \(problem)") }
            if let added = flow.added {
                terminal.line("  ok: group \(added.group) of \(added.groupCount), \(added.have) of \(added.memberThreshold) shares; \(added.groupThreshold) group\(added.groupThreshold == 1 ? "" : "s") needed")
            }
        }
    }
}
