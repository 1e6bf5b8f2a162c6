import Foundation
import HTTPTypes
import Hummingbird

/// Where a person returns after unlocking: the page the lock interrupted. A GET returns to
/// itself; a form sent while locked returns to the page it came from, refilled
/// (`AppSessions.InterruptedForm`). Only paths of this server that are pages qualify.
enum ReturnPath {
    /// The page being answered (GET only), for a redirect to the unlock page.
    @TaskLocal static var current: String?

    /// `text` when it is a page of this server to return to: a path (no scheme, no host, no
    /// `//`, no backslash, no control character), not an action, a stream or a download.
    static func safe(_ text: String?) -> String? {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), text.utf8.count <= 2_048,
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) else { return nil }
        let path = String(text.prefix { $0 != "?" && $0 != "#" })
        let excluded: Set<String> = ["/unlock", "/start", "/lock", "/events", "/alive", "/history/export", "/lightning/invoice/events",
                                     "/lightning/invoice/status"]
        guard !excluded.contains(path), !path.hasPrefix("/static/") else { return nil }
        return text
    }

    /// The pages that show a form refilled after the unlock (`AppSessions.takeInterrupted`).
    static let refilled: Set<String> = ["/send", "/receive", "/create", "/connections"]

    /// The page a form posted to `action` lives on.
    static func page(forAction action: String) -> String {
        switch action {
        case "/lightning/send", "/lightning/pay", "/lightning/pay-onchain": return "/send"
        case "/lightning/invoice", "/receive/new": return "/receive"
        case "/lightning/settings", "/lightning/fund", "/lightning/deposits/claim": return "/lightning"
        case "/lightning/exit": return "/lightning/exit"
        case "/create": return "/create"
        case "/backup", "/words", "/wallets/use", "/wallets/import-key", "/wallets/rename", "/wallets/delete": return "/wallets"
        default:
            for prefix in ["/settings", "/backups", "/vault", "/restore", "/connections"] where action.hasPrefix(prefix) { return prefix }
            return "/"
        }
    }

    /// The unlock page, returning to `path` afterwards.
    static func unlockPath(returningTo path: String?) -> String {
        guard let path = safe(path), path != "/" else { return "/unlock" }
        return "/unlock?next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}

/// Records the page being answered for `ReturnPath.current`.
struct ReturnPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get else { return try await next(request, context) }
        return try await ReturnPath.$current.withValue(ReturnPath.safe(request.uri.string)) { try await next(request, context) }
    }
}

extension AppResponse {
    /// To the unlock page, which returns to the page being answered afterwards.
    static func toUnlock() -> Response { redirect(ReturnPath.unlockPath(returningTo: ReturnPath.current)) }
}
