import Foundation
import HawalaOnChain
import HawalaText
import HawalaWallet

/// What the chain page shows: the balance, receive, the send form, the payments, the coins.
struct ChainPageView {
    /// The send form as typed (kept when it is refused) and its problem.
    struct SendFields {
        var to = "", amount = "", all = false, speed = Speed.normal.rawValue, rate = ""
        var sendProblem: String?

        init() {}

        init(_ form: FormBody) {
            to = form.text("to")?.trimmed ?? ""
            amount = form.text("amount")?.trimmed ?? ""
            all = form.text("all") == "on"
            speed = form.text("speed") ?? Speed.normal.rawValue
            rate = form.text("rate")?.trimmed ?? ""
        }

        func with(problem: String) -> SendFields {
            var fields = self
            fields.sendProblem = problem
            return fields
        }

        /// The speed chosen, or the rate typed under "custom".
        func feeChoice() throws(OnChainError) -> FeeChoice {
            speed == "custom" ? try FeeChoice(typedRate: rate) : .speed(Speed(rawValue: speed) ?? .normal)
        }
    }

    struct PaymentItem {
        let txid: String, shortID: String, what: String, amount: String, received: Bool, status: String, fee: String?, label: String?
        let unconfirmed: Bool
    }

    struct CoinItem { let outpoint: String, shortID: String, amount: String, status: String, frozen: Bool }
    struct SpeedChoice { let value: String, title: String, checked: Bool }

    let coin: String
    let name: String
    /// How the amount field reads: "litoshi or LTC".
    let amountUnits: String
    var networkName = ""
    var node: String?
    var nodeURL = ""
    var cookieFile = ""
    var defaultPort: String
    var syncNote: String?
    var confirmed = ""
    var incoming: String?
    var address = ""
    var addressIndex = 0
    var qrPath = ""
    var qrSize = 0
    var payments: [PaymentItem] = []
    var anyPayments = false
    var coins: [CoinItem] = []
    var anyCoins = false
    var send: SendFields
    var speeds: [SpeedChoice]
    var customRate: Bool
    /// A watch-only wallet: its payments are signed elsewhere (no send form, no speed-up).
    var watchOnly = false

    init(coin: Coin, send: SendFields = .init()) {
        self.coin = coin.rawValue
        name = coin.displayName
        // A bare number is read in the app's unit (`AmountText.unit`): the label says which.
        amountUnits = AmountText.unit == .btc ? "in \(coin.ticker); or \(coin.baseUnit), saying so" : "in \(coin.baseUnit); or \(coin.ticker), saying so"
        defaultPort = coin == .bitcoin ? "8332" : "9332"
        self.send = send
        speeds = Speed.allCases.map { SpeedChoice(value: $0.rawValue, title: "\($0.rawValue.capitalizedFirst) — \($0.words)", checked: send.speed == $0.rawValue) }
        customRate = send.speed == "custom"
    }

    /// The wallet as its last sync left it.
    mutating func show(_ wallet: OnChainWallet) throws {
        let coin = wallet.account.network.coin
        networkName = "\(wallet.account.network)"
        let ledger = try wallet.ledger()
        let labels = try wallet.labels()
        confirmed = coin.text(ledger.confirmed)
        incoming = ledger.unconfirmed > .zero ? coin.text(ledger.unconfirmed) : nil
        (address, addressIndex) = try { let next = try wallet.nextReceiveAddress(); return (next.address, Int(next.index)) }()
        (qrPath, qrSize) = try svgQRCode(address.uppercased(), caseInsensitive: true)
        payments = ledger.payments.map { payment in
            let id = payment.txid.description
            let status = payment.confirmations == 0 ? "Unconfirmed"
                : payment.confirmations == 1 ? "1 confirmation" : "\(AmountText.grouped(UInt64(payment.confirmations))) confirmations"
            // A payment to itself (a child paying for its parent, coins moved) costs only its fee.
            let what = payment.amount >= 0 ? "Received" : payment.amount.magnitude == payment.fee.value ? "Moved within this wallet" : "Sent"
            return PaymentItem(txid: id, shortID: String(id.prefix(12)) + "…", what: what, amount: (payment.amount < 0 ? "−" : "+") + coin.text(Sats(clamping: payment.amount.magnitude)),
                               received: payment.amount >= 0, status: status, fee: payment.fee > .zero ? coin.text(payment.fee) : nil,
                               label: labels["tx:\(id)"], unconfirmed: payment.confirmations == 0)
        }
        anyPayments = !payments.isEmpty
        coins = ledger.coins.map { held in
            let id = held.outpoint.description
            return CoinItem(outpoint: id, shortID: String(id.prefix(12)) + "…:\(held.outpoint.vout)", amount: coin.text(held.value),
                            status: (held.place.kind == .nativeSegwit ? "" : "\(held.place.kind.displayName.capitalizedFirst) · ")
                                + (held.confirmations == 0 ? "unconfirmed" : "\(AmountText.grouped(UInt64(held.confirmations))) conf."), frozen: held.frozen)
        }
        anyCoins = !coins.isEmpty
    }
}

/// A payment worked out and shown before the password: the library's rows and notes.
struct ChainReviewView {
    struct Row { let label: String, value: String }
    let coin: String
    let title: String
    let rows: [Row]
    let notes: [String]
    let total: String
    /// The payment being sped up: the form to try another rate.
    let speedUp: String?
    let planID: String

    init(plan: SendPlan, title: String, notes: [String], speedUp: Txid?, planID: String) {
        self.planID = planID
        let coin = plan.network.coin
        self.coin = coin.rawValue
        self.title = title
        rows = plan.previewRows(coin.text).map { Row(label: $0.label, value: $0.value) }
        self.notes = notes
        total = coin.text(plan.total)
        self.speedUp = speedUp?.description
    }
}

/// A chain's coins on the home, beside Lightning: read from the store, never waiting on a node.
struct ChainBalanceRow {
    let coin: String, name: String
    /// The coins confirmed, or what to do first ("Connect your node").
    let confirmed: String
    let incoming: String?
    let connected: Bool

    static func rows(store: WalletStore, wallet: WalletSummary) -> [ChainBalanceRow] {
        OnChainAccount.coins(of: wallet).map { coin in
            guard (try? OnChainWallet.savedNode(wallet: wallet, coin: coin, store: store)) != nil,
                  let ledger = try? OnChainWallet.open(wallet, coin: coin, store: store).ledger() else {
                return ChainBalanceRow(coin: coin.rawValue, name: coin.displayName, confirmed: "Connect your node", incoming: nil, connected: false)
            }
            // Never synced: no figure yet, rather than a zero that reads as an empty wallet.
            guard ledger.tipHeight > 0 || !ledger.transactions.isEmpty else {
                return ChainBalanceRow(coin: coin.rawValue, name: coin.displayName, confirmed: "Not synced yet", incoming: nil, connected: false)
            }
            return ChainBalanceRow(coin: coin.rawValue, name: coin.displayName, confirmed: coin.text(ledger.confirmed),
                                   incoming: ledger.unconfirmed > .zero ? coin.text(ledger.unconfirmed) : nil, connected: true)
        }
    }
}
