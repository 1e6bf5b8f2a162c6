import Foundation
import HawalaText
import HawalaWallet

/// What a template sees. Every value is text the template escapes (no triple braces anywhere).
struct Page {
    struct WalletRow {
        struct Imported { let chain: String, address: String, label: String }
        let name: String, network: String, fingerprint: String, backup: String
        /// "27 Nov 2026", "10 accounts, 1 imported key".
        let created: String, accounts: String
        let backedUp: Bool, isCurrent: Bool, hasWords: Bool
        /// The name for a query string (percent-encoded; the template escapes it again for HTML).
        let nameQuery: String
        let imported: [Imported]
    }

    /// A link of the menu; `current` marks the screen shown (aria-current).
    struct NavLink { let label: String, path: String, current: Bool }

    let title: String
    let minimumPasswordLength = WalletStore.minimumPasswordLength
    /// How amount fields read in the unit chosen: "sat" or "BTC", a phone's keyboard, an example.
    let unitLabel = AmountText.unit.label
    let amountInputMode = AmountText.unit == .btc ? "decimal" : "numeric"
    let amountExample = AmountText.unit == .btc ? "e.g. 0.0001" : "e.g. 2,500"
    let amountHint = AmountText.unit == .btc
        ? "In BTC, with a point for the decimals: 0.0001. Or in sat, saying so: 2,500 sat."
        : "Whole sats: 2500, 2,500 and 2 500 all work."
    var csrf = ""
    var unlocked = false
    /// Seconds an unlocked session may stay idle before it locks (the page counts them down).
    var idleLockSeconds = 0
    var wallets: [WalletRow] = []
    // Stored, not computed: templates see stored properties only (Mirror).
    var anyWallets = false
    /// Names of the wallets whose words are not backed up.
    var notBackedUp: [String] = []
    var anyNotBackedUp = false
    /// The reminder above every page but the home (which has its own card) and the backup itself.
    var showBackupBanner = false
    var backupBanner = ""
    var backupLink = ""
    /// The menu, its current screen marked (set by `AppRoutes.render` from the template).
    var nav: [NavLink] = []
    /// A page with a wide layout (tables of wallets, the vault).
    var wide = false
    /// The unlock page: where to return afterwards, and whether a form waits to be refilled.
    var next = ""
    var interrupted = false
    var home: HomeView?
    /// The part of the page a form's answer opens at (`#anchor`): the box the form was in.
    var anchor: String?
    /// Where the page leads at once (a meta refresh): a download that starts by itself.
    var refreshTo: String?
    var exported: ExportedView?
    var sendForm: SendFormView?
    var invoiceForm: InvoiceFormView?
    var problem: String?
    var message: String?
    /// Seconds after which the page reloads itself (nil: never): the words hide on time. An
    /// optional because a template section shows for any number, 0 included.
    var refreshSeconds: Int?
    var create: CreateView?
    var backup: BackupView?
    var recovery: RecoveryView?
    var receive: ReceiveView?
    /// The password asked again (showing the words, verifying them): which wallet, and why.
    var secretWords: SecretWordsView?
    /// Seconds after which a page without scripts reloads to check again (an invoice waiting to
    /// be paid); with scripts, events arrive instead.
    var pollSeconds: Int?
    var lightning: LightningView?
    var lnurlConfirm: LNURLConfirmView?
    var invoice: InvoiceView?
    var send: SendView?
    var onChainSend: OnChainSendView?
    /// A Bitcoin or Litecoin account as a wallet of coins, and a payment of it under review.
    var chain: ChainPageView?
    var chainReview: ChainReviewView?
    var exit: ExitView?
    var payment: PaymentView?
    var history: HistoryView?
    var backups: BackupsView?
    var importing: ImportView?
    /// What an import did, one sentence per wallet.
    var imported: [String]?
    var settings: SettingsView?
    var vault: VaultView?
    /// The wallets page's own parts: a switch waiting for its confirmation, the key import form.
    var walletsView: WalletsView?
    /// SLIP-39 shares to print.
    var shares: SharesView?
    var sharesEntry: SharesEntryView?
    var connections: ConnectionsView?
    var approvals: ApprovalsView?
    /// "A program asks you to approve a payment": on every page while one waits.
    var approvalsBanner: String?
    /// A connection just made: its URI, shown once.
    var newConnection: NewConnectionView?

    init(title: String, message: String? = nil) {
        self.title = title
        self.message = message
    }

    init(title: String, session: AppSessions.Session, overview: WalletOverview, problem: String? = nil, message: String? = nil) {
        self.title = title
        csrf = session.csrf
        unlocked = session.isUnlocked
        wallets = overview.wallets.map { w in
            WalletRow(name: w.name, network: w.network.rawValue, fingerprint: w.fingerprint, backup: w.backup.summary,
                      created: w.createdAt.formatted(Date.FormatStyle(date: .abbreviated, time: .omitted, timeZone: session.timeZone)),
                      accounts: w.accountsText,
                      backedUp: w.backup.isBackedUp, isCurrent: w.isCurrent, hasWords: w.kind == .bip39,
                      nameQuery: w.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
                      imported: w.importedAccounts.map { .init(chain: $0.chain, address: $0.address, label: $0.label ?? "") })
        }
        idleLockSeconds = Int(session.idleLock)
        let reminder = overview.reminder
        notBackedUp = reminder.wallets.map(\.name)
        anyWallets = !wallets.isEmpty
        anyNotBackedUp = !notBackedUp.isEmpty
        if let first = reminder.wallets.first, unlocked {
            showBackupBanner = true
            backupBanner = reminder.wallets.count == 1 ? "“\(first.name)” is not backed up." : "\(reminder.wallets.count) wallets are not backed up."
            backupLink = "/words?purpose=backup&wallet=" + (first.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        if unlocked, overview.waitingApprovals > 0 {
            approvalsBanner = overview.waitingApprovals == 1 ? "A program asks you to approve a payment." : "\(overview.waitingApprovals) payments wait for your approval."
        }
        self.problem = problem
        self.message = message
    }
}

extension Page {
    /// The menu's screens, in order: its words are the pages' titles.
    static let menu: [(label: String, path: String, section: String)] = [
        ("Home", "/", "home"), ("Send", "/send", "send"), ("Receive", "/receive", "receive"), ("History", "/history", "history"),
        ("Wallets", "/wallets", "wallets"), ("Backups", "/backups", "backups"), ("Vault", "/vault", "vault"),
        ("Connections", "/connections", "connections"), ("Settings", "/settings", "settings"),
    ]

    /// Which menu screen a template belongs to.
    static let sections: [String: String] = [
        "home": "home", "chain": "home", "chain-review": "send", "send-form": "send", "send": "send", "payment": "send",
        "receive": "receive", "receive-lightning": "receive", "invoice": "receive",
        "history": "history", "payment-detail": "history",
        "wallets": "wallets", "create": "wallets", "restore": "wallets", "restore-shares": "wallets", "words-password": "wallets", "backup": "wallets",
        "backups": "backups", "exported": "backups", "import": "backups", "imported": "backups", "shares": "backups",
        "vault": "vault", "settings": "settings", "lightning": "settings", "connections": "connections", "connection-new": "connections", "approvals": "connections",
    ]

    /// The menu with `template`'s screen marked, and no backup banner where the page is itself
    /// about the backup.
    mutating func place(in template: String) {
        let section = Self.sections[template]
        nav = Self.menu.map { NavLink(label: $0.label, path: $0.path, current: $0.section == section) }
        if ["home", "backup", "words-password", "wallets"].contains(template) { showBackupBanner = false }
        if template == "approvals" { approvalsBanner = nil }
    }
}
