import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaPaper
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOPosix

/// SLIP-39 Shamir shares: a wallet split (the password again) into a printable page, one share a
/// sheet, or a PDF drawn in memory, one share a page; and a wallet recovered from pasted shares —
/// each one checked as `ShareEntryFlow` checks typed ones — after its first addresses are shown,
/// then saved with `WalletStore.recover`.
struct ShamirController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.unlockedForms.post("/backups/shamir") { _, context in try await splitIntoShares(context.session, context.form) }
        router.home.get("/restore/shares") { request, context in try await sharesPage(request, context.session) }
        router.forms.post("/restore/shares") { _, context in try await readShares(context.session, context.form) }
        router.forms.post("/restore/shares/save") { _, context in try await saveFromShares(context.session, context.form) }
    }
}

/// The shamir area's handlers: each reads the request, asks the library and renders.
extension ShamirController {
    // MARK: - Split

    /// The shares, shown once on a page made for printing (nothing is kept: a reload asks for
    /// the password again).
    func splitIntoShares(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        let groups: [SLIP39.Group]
        let groupThreshold = Int(form.text("groupThreshold")?.trimmed ?? "") ?? 0
        let passphrase = form.secret("sharesPassphrase") ?? SecretBytes([])
        do {
            groups = try (form.text("groups") ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map { try SLIP39.Group(parsing: String($0)) }
            guard !groups.isEmpty else { return try await backups(session, status: .badRequest, problem: "Give at least one group, such as 2/3.") }
            // An impossible layout or passphrase is refused before the password is checked.
            try SLIP39.checkLayout(groupThreshold: groupThreshold, groups: groups)
            try SLIP39.checkPassphrase(passphrase)
        } catch let error as SLIP39Error {
            return try await backups(session, status: .badRequest, problem: error.description.sentence)
        }
        guard passphrase == form.secret("sharesRepeat") ?? SecretBytes([]) else {
            return try await backups(session, status: .badRequest, problem: "The two share passphrases differ. Type the same one twice, or leave both empty.")
        }
        let keyring: Keyring
        switch try await checkPassword(form, session) {
        case .opened(let opened): keyring = opened
        case .refused(let status, let problem): return try await backups(session, status: status, problem: problem)
        }
        let store = try await app.store.get()
        let split: ShamirSplit
        do {
            let wallet = try store.wallet(named: form.text("wallet"))
            split = try await NIOThreadPool.singleton.runIfActive {
                try store.shamirSplit(wallet, groupThreshold: groupThreshold, groups: groups, passphrase: passphrase, keyring: keyring)
            }
        } catch let error as WalletError {
            return try await backups(session, status: .badRequest, problem: error.description.sentence)
        }
        if form.text("format") == "pdf" {
            let sheets = ShareSheets(split, paper: form.text("paper").flatMap(PaperBackup.Paper.init(rawValue:)) ?? .a4, date: await app.sessions.time())
            let pdf = try await NIOThreadPool.singleton.runIfActive { try sheets.pdf() }
            return Response(status: .ok, headers: [.contentType: "application/pdf", .contentDisposition: "attachment; filename=\"hawala-shares.pdf\""],
                            body: .init(byteBuffer: ByteBuffer(bytes: pdf.unsafeCopy())))
        }
        var page = Page(title: "Shamir shares", session: session, overview: try await app.store.overview())
        page.shares = SharesView(split)
        return try render(.ok, "shares", page)
    }

    // MARK: - Recover

    func sharesPage(_ request: Request, _ session: AppSessions.Session) async throws -> Response {
        return try await shares(session)
    }

    func shares(_ session: AppSessions.Session, status: HTTPResponse.Status = .ok, problem: String? = nil,
                entry: SharesEntryView = SharesEntryView()) async throws -> Response {
        let overview = try await app.store.overview()
        var page = Page(title: "Restore from shares", session: session, overview: overview, problem: problem)
        var entry = entry
        entry.needsPassword = !overview.hasPassword
        page.sharesEntry = entry
        return try render(status, "restore-shares", page)
    }

    /// The pasted shares, one a line, each checked as if typed and added to those taken before
    /// (a wrong line is named, never shown again: paste it corrected); once they recover the
    /// secret, every reading of it is shown with its first addresses. Nothing is saved yet.
    func readShares(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        if form.text("event") == "clear" {
            await app.sessions.update(session.id) { $0.shareEntry = nil }
            return AppResponse.redirect("/restore/shares")
        }
        let network = form.text("network").flatMap(Network.init(rawValue:)) ?? .mainnet
        var flow = session.shareEntry ?? ShareEntryFlow()
        let lineProblems = ShamirShares.add(form.secret("shares") ?? SecretBytes([]), to: &flow)
        let taken = flow
        await app.sessions.update(session.id) { $0.shareEntry = taken }
        var entry = SharesEntryView(network: network, taken: flow.shares.count)
        entry.lineProblems = lineProblems.map(\.description.sentence)
        guard lineProblems.isEmpty else {
            let problem = lineProblems.count == 1 ? "One line was not taken. Paste it again, corrected." : "\(lineProblems.count) lines were not taken. Paste them again, corrected."
            return try await shares(session, status: .badRequest, problem: problem, entry: entry)
        }
        guard !flow.shares.isEmpty else { return try await shares(session, status: .badRequest, problem: "Paste your shares, one a line.", entry: entry) }
        let collected = flow.shares
        let passphrase = form.secret("passphrase") ?? SecretBytes([])
        let store = try await app.store.existing()
        let readings: [ShamirReading]
        do {
            readings = try await NIOThreadPool.singleton.runIfActive {
                try ShamirShares.readings(of: collected, passphrase: passphrase, network: network, store: store)
            }
        } catch let error as SLIP39Error {
            return try await shares(session, status: .badRequest, problem: error.description.sentence + ". The shares taken are kept: paste the others.", entry: entry)
        }
        await app.sessions.update(session.id) {
            $0.shareEntry = nil
            $0.sharesRecovery = AppSessions.SharesRecovery(readings: readings, network: network)
        }
        entry.choose(readings, network: network)
        return try await shares(session, entry: entry)
    }

    /// The reading whose addresses the person recognised, saved (backed up: they hold the shares).
    func saveFromShares(_ session: AppSessions.Session, _ form: FormBody) async throws -> Response {
        guard let pending = session.sharesRecovery else { return AppResponse.redirect("/restore/shares") }
        // The readings again, with the problem (their addresses derived only then).
        func again(_ problem: String) async throws -> Response {
            var entry = SharesEntryView(network: pending.network)
            entry.choose(pending.readings, network: pending.network)
            return try await shares(session, status: .badRequest, problem: problem, entry: entry)
        }
        guard let index = form.text("reading").flatMap(Int.init), pending.readings.indices.contains(index) else {
            return try await again("Choose the addresses that are yours.")
        }
        if let existing = pending.readings[index].existing { return try await again(WalletError.alreadyExists(name: existing).description.sentence) }
        let name = form.text("name")?.trimmed ?? ""
        let store = try await app.store.get(create: true)
        let first = try !store.hasPassword()
        let keyring: Keyring
        switch try await keyringForChange(session, form, store: store) {
        case .keyring(let chosen): keyring = chosen
        case .problem(let problem): return try await again(problem)
        case .locked: return AppResponse.toUnlock()
        }
        do {
            let reading = pending.readings[index].secret, network = pending.network
            _ = try await NIOThreadPool.singleton.runIfActive { try store.recover(reading, name: name.nilIfEmpty, network: network) { keyring } }
        } catch let error as WalletError {
            return try await again(error.description.sentence)
        }
        await app.sessions.update(session.id) { $0.sharesRecovery = nil }
        guard first else { return AppResponse.redirect("/") }
        guard let unlocked = await app.sessions.unlock(session.id, keyring: keyring) else { return try noSession() }
        return AppResponse.redirect("/", cookie: unlocked.id)
    }
}

/// The printable shares: one sheet a share, each saying whose it is and what recovers the wallet.
struct SharesView {
    struct Sheet {
        let group: Int
        let member: Int
        let memberThreshold: Int
        let memberCount: Int
        let words: [NumberedWord]
    }

    let wallet: String
    let fingerprint: String
    let needed: String
    let withPassphrase: Bool
    let bip39PassphraseLeftOut: Bool
    let holdsWords: Bool
    let sheets: [Sheet]

    init(_ split: ShamirSplit) {
        wallet = split.wallet.name
        fingerprint = split.wallet.fingerprint
        needed = split.recoveryRule
        withPassphrase = split.withPassphrase
        bip39PassphraseLeftOut = split.bip39PassphraseLeftOut
        holdsWords = split.secretKind == .bip39
        sheets = split.shares.enumerated().flatMap { g, group in
            group.enumerated().map { m, share in
                Sheet(group: g + 1, member: m + 1, memberThreshold: split.layout[g].threshold, memberCount: split.layout[g].count,
                      words: share.words.enumerated().map { NumberedWord(number: $0 + 1, word: $1) })
            }
        }
    }
}

/// Restoring from shares: the shares taken so far and the lines refused (never the text
/// pasted), then each reading of the secret with its first addresses.
struct SharesEntryView {
    struct Reading {
        struct Address { let chain: String, address: String }
        let index: Int
        let label: String
        let addresses: [Address]
        let only: Bool

        /// The wallet here that already is this reading (it can't be chosen).
        let existing: String?

        init(index: Int, reading: ShamirReading, network: Network, only: Bool) {
            self.index = index
            self.only = only && reading.existing == nil
            existing = reading.existing
            label = reading.secret.kind == .bip39 ? "Split by Hawala (BIP39 words come back)" : "Made by a Trezor or another SLIP-39 wallet (a seed, no words)"
            addresses = reading.secret.keys.confirmationAddresses(network: network).map { Address(chain: $0.chain.name, address: $0.address) }
        }
    }

    var networks: [CreateView.Option] = []
    /// Shares taken so far (from earlier forms too).
    var taken = 0
    /// The lines of the last paste not taken, each in a sentence (never the line).
    var lineProblems: [String] = [] { didSet { hasLineProblems = !lineProblems.isEmpty } }
    /// (Stored: the templates see stored properties only.)
    private(set) var hasLineProblems = false
    var readings: [Reading] = []
    var choosing = false
    /// The secret reads two ways (BIP39 entropy and a seed): the person picks by the addresses.
    var twoReadings = false
    var needsPassword = false
    let minimumPasswordLength = WalletStore.minimumPasswordLength

    init(network: Network = .mainnet, taken: Int = 0) {
        self.taken = taken
        networks = CreateView.networkOptions(selected: network)
    }

    mutating func choose(_ readings: [ShamirReading], network: Network) {
        self.readings = readings.enumerated().map { Reading(index: $0, reading: $1, network: network, only: readings.count == 1) }
        twoReadings = readings.count > 1
        choosing = true
    }
}
