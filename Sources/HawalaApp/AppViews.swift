import Foundation
import HawalaBackup
import HawalaKeys
import HawalaPaper
import HawalaText
import HawalaWallet

// What the screens beyond the wallet list show, as plain values for the templates: stored
// properties only (templates read them through Mirror), every one escaped when rendered.

/// A numbered word (1-based), as written on paper.
struct NumberedWord { let number: Int, word: String }

/// The create form: what was chosen, kept when the form comes back with a problem.
struct CreateView {
    struct Option { let value: String, label: String, selected: Bool }
    /// A first wallet also sets the wallet password.
    let needsPassword: Bool
    let wordCounts: [Option]
    let networks: [Option]
    let name: String
    /// The fields a problem can be next to.
    enum Field { case name, words, passphrase, password }
    var nameProblem: String?
    var wordsProblem: String?
    var passphraseProblem: String?
    var passwordProblem: String?

    init(needsPassword: Bool, wordCount: Int = 12, network: Network = WalletStore.newWalletNetwork, name: String = "") {
        self.needsPassword = needsPassword
        wordCounts = WalletStore.newWordCounts.map { Option(value: String($0), label: "\($0) words", selected: $0 == wordCount) }
        networks = CreateView.networkOptions(selected: network)
        self.name = name
    }

    static func networkOptions(selected: Network) -> [Option] {
        // Testnet first: where a new wallet starts.
        [Network.testnet, .mainnet].map { Option(value: $0.rawValue, label: $0 == .mainnet ? "Mainnet (real bitcoin)" : "Testnet (coins worth nothing)",
                                                selected: $0 == selected) }
    }

    static func networkLabel(_ network: Network) -> String { network == .mainnet ? "Mainnet" : "Testnet" }
}

/// One step of the seed backup (`SeedBackupFlow`).
struct BackupView {
    let heading: String
    /// A credential backup's recovery phrase (not a wallet's words): no "later", other advice.
    let isCredential: Bool
    var intro = false
    /// The words, while they are shown.
    var words: [NumberedWord] = []
    var showingWords = false
    /// "Word #N" while quizzing: the position, and which question of how many.
    var quizPosition = 0
    var question = 0
    var questions = 0
    var quizzing = false
    var wrongPosition = 0
    var wrong = false
    var confirming = false
    let wordCount: Int
    /// Minutes the words stay on screen.
    var hideMinutes = 0
    /// The page reloads itself when the words hide (a meta refresh, no script).
    var refreshSeconds: Int?
    /// Whether the wallet was backed up before (showing the words again, not the first backup).
    let alreadyBackedUp: Bool

    init(task: AppSessions.BackupTask, now: Date) {
        switch task.subject {
        case .wallet(let wallet):
            heading = "Back up “\(wallet.name)”"
            isCredential = false
            alreadyBackedUp = wallet.backup.isBackedUp
        case .vaultCredential:
            heading = "Your recovery phrase"
            isCredential = true
            alreadyBackedUp = false
        }
        let flow = task.flow
        wordCount = flow.wordCount
        switch flow.state {
        case .intro: intro = true
        case .showingWords:
            showingWords = true
            words = flow.words.enumerated().map { NumberedWord(number: $0.offset + 1, word: $0.element) }
            refreshSeconds = max(1, Int(task.wordsHideAt.timeIntervalSince(now).rounded(.up)) + 1)
            hideMinutes = max(1, Int((task.wordsHideAt.timeIntervalSince(now) / 60).rounded(.up)))
        case let .quiz(index, position):
            quizzing = true
            quizPosition = position
            question = index + 1
            questions = flow.positions.count
        case .wrongAnswer(let position):
            // Asked again in place: the questions answered stay answered.
            quizzing = true
            wrong = true
            wrongPosition = position
            quizPosition = position
            question = (flow.positions.firstIndex(of: position) ?? 0) + 1
            questions = flow.positions.count
        case .confirming: confirming = true
        case .backedUp, .skipped: break
        }
    }
}

/// One step of a recovery (`RecoveryFlow`).
struct RecoveryView {
    struct Address { let chain: String, address: String }
    var choosingNetwork = false
    var networks: [CreateView.Option] = []
    let networkWarning = RecoveryFlow.networkWarning
    var choosingWordCount = false
    var wordCounts: [CreateView.Option] = []
    var enteringWord = false
    var position = 0
    var wordCount = 0
    /// The words accepted so far, numbered (the person compares them with the paper).
    var words: [NumberedWord] = []
    var anyWords = false
    var suggestions: [String] = []
    var anySuggestions = false
    var checksumFailed = false
    /// A word can be corrected (after a failed checksum, or while reviewing).
    var editable = false
    var enteringPassphrase = false
    var confirming = false
    var addresses: [Address] = []
    var reviewing = false
    var done = false
    var needsPassword = false
    var name = ""

    init(flow: RecoveryFlow, needsPassword: Bool) {
        self.needsPassword = needsPassword
        words = flow.words.enumerated().map { NumberedWord(number: $0.offset + 1, word: $0.element) }
        anyWords = !words.isEmpty
        wordCount = flow.wordCount
        switch flow.problem {
        case let .unknownWord(_, suggestions): self.suggestions = suggestions
        case let .ambiguousPrefix(_, candidates): suggestions = candidates
        default: break
        }
        anySuggestions = !suggestions.isEmpty
        switch flow.state {
        case .choosingNetwork:
            choosingNetwork = true
            networks = CreateView.networkOptions(selected: flow.network)
        case .choosingWordCount:
            choosingWordCount = true
            wordCounts = Mnemonic.wordCounts.map { .init(value: String($0), label: "\($0) words", selected: $0 == 12) }
        case .enteringWord(let position):
            enteringWord = true
            self.position = position
        case .checksumFailed: checksumFailed = true
        case .enteringPassphrase: enteringPassphrase = true
        case .confirmingAddresses(let found):
            confirming = true
            addresses = found.map { a in Address(chain: Chain.named(a.chain)?.displayName ?? a.chain, address: a.address) }
        case .reviewing:
            reviewing = true
            networks = CreateView.networkOptions(selected: flow.network)
        case .done: done = true
        case .cancelled: break
        }
        editable = checksumFailed || reviewing
    }
}

/// The receive screen: the address of one chain, its QR code as inline SVG, the other chains.
struct ReceiveView {
    struct ChainLink { let name: String, label: String, current: Bool }
    let wallet: String
    let chain: String
    let chainLabel: String
    let index: Int
    let path: String
    let address: String
    /// The text in the QR code (the BIP21 URI where the chain has one).
    let qrText: String
    /// The QR code's modules as one SVG path: only digits and the letters M, h, v, z.
    let qrPath: String
    let qrSize: Int
    let chains: [ChainLink]
    /// The wallet uses Lightning: the tabs offer an invoice too.
    var hasLightning = false
    /// The chain's own page, where payments to this address show (a node is connected), and
    /// whether one is.
    var chainPage: String?
    var watched = false

    init(wallet: WalletSummary, request: AddressRequest, chains: [Chain]) throws {
        self.wallet = wallet.name
        chain = request.chain.name
        chainLabel = request.chain.displayName
        index = request.index
        path = request.address.path
        address = request.address.address
        qrText = request.qrText
        (qrPath, qrSize) = try svgQRCode(request.qrText)
        self.chains = chains.map { ChainLink(name: $0.name, label: $0.displayName, current: $0 == request.chain) }
    }
}

/// The password asked again before the words are shown, backed up or quizzed.
struct SecretWordsView {
    let wallet: String
    /// "show" (the words), "backup" (the backup flow from its start) or "verify" (the quiz).
    let purpose: String
    let title: String
    let showsWords: Bool
    let button: String

    init(wallet: String, purpose: String) {
        self.wallet = wallet
        self.purpose = ["show", "backup"].contains(purpose) ? purpose : "verify"
        showsWords = self.purpose != "verify"
        (title, button) = switch self.purpose {
        case "show": ("Show the words", "Show the words")
        case "backup": ("Back up the words", "Back up now")
        default: ("Verify the backup", "Start the check")
        }
    }
}

/// The backups page: which wallets an export may hold.
struct BackupsView {
    struct Choice {
        let value: String, label: String
        var selected: Bool
    }
    let canExport: Bool
    var choices: [Choice]
    /// Every wallet, the current one first (Shamir shares).
    let walletChoices: [Choice]
    /// The wallets with words, for a paper sheet (the current one first).
    let paperChoices: [Choice]
    let canPrint: Bool
    let minimumLength = PasswordStrength.minimumLength
    /// The key derivation an export really uses (the library's default).
    let kdf = HawalaKDFCost.default.description
    /// The export form as typed (its wallet chosen) and its problems, each by its field.
    var exportWallet = ""
    var backupPasswordProblem: String?
    var walletPasswordProblem: String?
    var exportProblem: String?

    init(wallets: [WalletSummary]) {
        canExport = !wallets.isEmpty
        choices = [Choice(value: "", label: "All wallets", selected: false)] + wallets.map { Choice(value: $0.name, label: $0.name, selected: false) }
        let currentFirst = wallets.sorted { $0.isCurrent && !$1.isCurrent }
        walletChoices = currentFirst.map { Choice(value: $0.name, label: $0.name, selected: false) }
        paperChoices = currentFirst.filter { $0.kind == .bip39 }.map { Choice(value: $0.name, label: $0.name, selected: false) }
        canPrint = !paperChoices.isEmpty
    }
}

/// A backup file made: what it is called and how large.
struct ExportedView {
    let name: String
    let size: String
}

/// An import's preview: each incoming wallet, its first addresses, its conflict and the choices.
struct ImportView {
    struct Row {
        struct Address { let chain: String, address: String }
        struct Choice { let value: String, label: String, checked: Bool }
        let index: Int
        let name: String
        let network: String
        let kind: String
        let addresses: [Address]
        let conflict: String?
        let choices: [Choice]
    }

    let source: String
    let madeBy: String
    let heading: String
    let rows: [Row]
    let anyConflict: Bool
    /// A new home: the wallet password is set here.
    let needsPassword: Bool
    let minimumPasswordLength = WalletStore.minimumPasswordLength

    init(plan: BackupImportPlan, source: String, needsPassword: Bool) {
        self.source = source
        madeBy = plan.payload.app
        heading = plan.rows.count == 1 ? "Import 1 wallet?" : "Import \(plan.rows.count) wallets?"
        rows = plan.rows.enumerated().map { index, row in
            let wallet = row.wallet
            let kind = wallet.secret.mnemonic.map { "\($0.wordCount) words" } ?? "seed only"
            let imported = wallet.importedAccounts.isEmpty ? "" : ", \(wallet.importedAccounts.count) imported keys"
            let choices = (row.conflict?.offered ?? []).map { policy in
                // Nothing chosen in advance: an import decides nothing on a guess (the CLI asks too).
                Row.Choice(value: policy.rawValue, label: Self.label(policy), checked: false)
            }
            return Row(index: index, name: wallet.name, network: wallet.network.rawValue, kind: kind + imported,
                       addresses: row.firstAddresses.map { Row.Address(chain: $0.chain.displayName, address: $0.address) },
                       conflict: row.conflict.map { $0.description.sentence },
                       choices: choices)
        }
        anyConflict = plan.rows.contains { $0.conflict != nil }
        self.needsPassword = needsPassword
    }

    static func label(_ policy: ConflictPolicy) -> String {
        switch policy {
        case .skip: "Keep the one here (skip this one)"
        case .keepBoth: "Keep both (this one under a new name)"
        case .replace: "Replace the one here with this one"
        }
    }
}

/// A QR code as one SVG path (only digits and `Mhvz-`: nothing to escape, no image) and its
/// side in modules, quiet zone included.
func svgQRCode(_ text: String, caseInsensitive: Bool = false) throws -> (path: String, size: Int) {
    let symbol = try TextQR.encode(text, caseInsensitive: caseInsensitive)
    return (TextQR.svgPath(symbol, quietZone: 4), symbol.size + 8)
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

/// A date as a page shows it, in the reader's time zone: "today 14:07", "3 Nov 2025".
func dateText(_ date: Date, _ timeZone: TimeZone, now: Date = Date()) -> String {
    date.relative(now: now, timeZone: timeZone)
}
