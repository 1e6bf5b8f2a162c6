import Foundation
import HawalaWallet

/// What a template sees. Every value is text the template escapes (no triple braces anywhere).
struct Page {
    struct WalletRow {
        struct Imported { let chain: String, address: String, label: String }
        let name: String, network: String, fingerprint: String, backup: String
        let backedUp: Bool, isCurrent: Bool, hasWords: Bool
        /// The name for a query string (percent-encoded; the template escapes it again for HTML).
        let nameQuery: String
        let imported: [Imported]
    }

    let title: String
    let minimumPasswordLength = WalletStore.minimumPasswordLength
    var csrf = ""
    var unlocked = false
    var wallets: [WalletRow] = []
    // Stored, not computed: templates see stored properties only (Mirror).
    var anyWallets = false
    /// Names of the wallets whose words are not backed up: a badge on every page.
    var notBackedUp: [String] = []
    var anyNotBackedUp = false
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
    var invoice: InvoiceView?
    var send: SendView?
    var payment: PaymentView?
    var history: HistoryView?
    var backups: BackupsView?
    var importing: ImportView?
    /// What an import did, one sentence per wallet.
    var imported: [String]?
    var settings: SettingsView?
    var vault: VaultView?
    /// SLIP-39 shares to print.
    var shares: SharesView?
    var sharesEntry: SharesEntryView?

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
                      backedUp: w.backup.isBackedUp, isCurrent: w.isCurrent, hasWords: w.kind == .bip39,
                      nameQuery: w.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
                      imported: w.importedAccounts.map { .init(chain: $0.chain, address: $0.address, label: $0.label ?? "") })
        }
        notBackedUp = overview.reminder.wallets.map(\.name)
        anyWallets = !wallets.isEmpty
        anyNotBackedUp = !notBackedUp.isEmpty
        self.problem = problem
        self.message = message
    }
}
