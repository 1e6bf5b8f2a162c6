import Foundation
import HawalaLightning
import HawalaWallet
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// The payment history of the current wallet: filters and search, one payment's details, and
/// the whole history as a CSV or JSON download (`PaymentExport`, as `hawala ln export` writes it).
struct HistoryController: AppController {
    let routes: AppRoutes

    func addRoutes(to router: AppRouter) {
        router.walletPages.get("/history") { request, context in try await historyPage(request, context.session, context.open) }
        router.walletPages.get("/history/payment") { request, context in try await paymentPage(request, context.session, context.open) }
        router.walletPages.get("/history/export") { request, context in try await exportHistory(request, context.session, context.open) }
        router.walletForms.post("/history/payment/settle") { _, context in try await endHold(settle: true, context.session, context.form, context.open) }
        router.walletForms.post("/history/payment/cancel") { _, context in try await endHold(settle: false, context.session, context.form, context.open) }
    }
}

/// The history area's handlers: each reads the request, asks the library and renders.
extension HistoryController {
    /// What the history page's query asks for: the filter (type, status, search, network) that
    /// the page lists and its downloads write, and the network as asked.
    struct HistoryQuery {
        let type: Payment.Kind?
        let status: Payment.Status?
        let search: String
        let offset: Int
        let network: String
        let filter: PaymentFilter

        init(_ request: Request, store: WalletStore, walletID: String) {
            let query = request.uri.queryParameters
            type = query["type"].flatMap { Payment.Kind(rawValue: String($0)) }
            status = query["status"].flatMap { Payment.Status(rawValue: String($0)) }
            search = String((query["q"].map(String.init) ?? "").trimmed.prefix(200))
            offset = min(max(0, query["offset"].flatMap { Int(String($0)) } ?? 0), 10_000_000)
            network = String((query["network"].map(String.init) ?? "").prefix(1024))
            let scope = (try? HistoryNetwork(parsing: network, home: store.home.directory)) ?? .current
            filter = PaymentFilter(type: type, status: status, search: search.nilIfEmpty, network: scope.filterValue(store: store, walletID: walletID))
        }
    }

    func historyPage(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        let asked = HistoryQuery(request, store: store, walletID: wallet.id)
        var filter = asked.filter
        filter.offset = asked.offset
        // One more than a page: whether there is an older page.
        filter.limit = HistoryView.pageSize + 1
        var rows = try store.payments(walletID: wallet.id, filter: filter)
        let hasMore = rows.count > HistoryView.pageSize
        if hasMore { rows.removeLast() }
        var page = Page(title: "History", session: session, overview: try await app.store.overview())
        page.history = HistoryView(rows: rows, hasMore: hasMore, type: asked.type, status: asked.status, search: asked.search, offset: asked.offset,
                                   now: await app.sessions.time(), timeZone: session.timeZone,
                                   network: (asked.network, HistoryNetwork.choices(store: store, walletID: wallet.id)),
                                   matching: try store.countPayments(walletID: wallet.id, filter: asked.filter))
        return try render(.ok, "history", page)
    }

    func paymentPage(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        let (store, wallet) = (open.store, open.wallet)
        var page = Page(title: "Payment", session: session, overview: try await app.store.overview())
        let id = request.uri.queryParameters["id"].map(String.init) ?? ""
        let found: Payment?
        do {
            found = id.isEmpty ? nil : try store.payment(walletID: wallet.id, id: id)
        } catch let error as WalletError {
            page.message = error.description
            return try render(.badRequest, "message", page)
        }
        guard let payment = found else {
            page.message = "No such payment in wallet “\(wallet.name)”."
            return try render(.notFound, "message", page)
        }
        page.payment = PaymentView(payment, now: await app.sessions.time(), timeZone: session.timeZone)
        if let hash = payment.isHeld ? payment.details.paymentHash : nil {
            page.payment?.canSettle = (try? store.hasHoldPreimage(paymentHash: hash, walletID: wallet.id)) ?? false
        }
        return try render(.ok, "payment-detail", page)
    }

    /// Settles or cancels the held payment `id` (its page's two buttons); back to its page,
    /// with the library's words when it did not happen.
    func endHold(settle: Bool, _ session: AppSessions.Session, _ form: FormBody, _ open: OpenWallet) async throws -> Response {
        let id = String((form.text("id") ?? "").prefix(200))
        guard let payment = try open.store.payment(walletID: open.wallet.id, id: id), let hash = payment.details.paymentHash else {
            var page = Page(title: "Payment", session: session, overview: try await app.store.overview())
            page.message = "No such payment in wallet “\(open.wallet.name)”."
            return try render(.notFound, "message", page)
        }
        do {
            let lightning = try await lightningSession(session, open.store, open.wallet, keyring: open.keyring)
            let ended = settle ? try await lightning.settle(.paymentHash(hash)) : try await lightning.cancel(paymentHash: hash)
            return AppResponse.redirect("/history/payment?id=" + (ended.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        } catch {
            guard let words = AppRoutes.lightningWords(error) else { throw error }
            var page = Page(title: "Payment", session: session, overview: try await app.store.overview())
            page.payment = PaymentView(payment, now: await app.sessions.time(), timeZone: session.timeZone)
            page.payment?.canSettle = (try? open.store.hasHoldPreimage(paymentHash: hash, walletID: open.wallet.id)) ?? false
            page.payment?.holdProblem = words
            return try render(.badRequest, "payment-detail", page)
        }
    }

    /// The payments the history page shows (its type, status, search and network; every page
    /// of them) as a file to save (`hawala-payments.csv` or `.json`).
    func exportHistory(_ request: Request, _ session: AppSessions.Session, _ open: OpenWallet) async throws -> Response {
        guard let format = request.uri.queryParameters["format"].flatMap({ PaymentExport.Format(rawValue: String($0)) }) else {
            return AppResponse.plain(.badRequest, "format must be csv or json")
        }
        let (store, wallet) = (open.store, open.wallet)
        let filter = HistoryQuery(request, store: store, walletID: wallet.id).filter
        let file = try await NIOThreadPool.singleton.runIfActive {
            var buffer = ByteBuffer()
            _ = try PaymentExport.write(format, store: store, walletID: wallet.id, filter: filter) { buffer.writeBytes($0) }
            return buffer
        }
        // The file name is fixed: a wallet's name never reaches a header.
        return Response(status: .ok, headers: [
            .contentType: format == .csv ? "text/csv; charset=utf-8" : "application/json",
            .contentDisposition: "attachment; filename=\"hawala-payments.\(format.rawValue)\"",
        ], body: .init(byteBuffer: file))
    }
}
