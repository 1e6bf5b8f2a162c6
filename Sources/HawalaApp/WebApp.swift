import Foundation
import HawalaCrypto
import HawalaFormat
import HawalaLightning
import HawalaText
import HawalaWallet
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// How the app is served.
public struct AppOptions: Sendable {
    /// The address to listen on: loopback unless a person asks otherwise.
    public var host = "127.0.0.1"
    /// 0: any free port.
    public var port = 0
    /// An unlocked session locks after this long without a request (nil: the saved setting,
    /// else `IdleLock.default`).
    public var idleLock: IdleLock?
    /// The clock (tests move it).
    public var now: @Sendable () -> Date = { Date() }
    /// The payment backends the executable links (`hawala`: devnet always, Spark when it links
    /// the Breez SDK); none unless it says.
    public var backends = BackendOpeners(devnet: nil)
    /// The program and its version, as a backup file records who made it.
    public var producer = "hawala"
    /// The largest `.hawala` file taken, uploaded or from the vault: the vault's default upload
    /// limit (a backup of 100,000 payments is about 80 MB). It is read and decrypted in memory:
    /// an 80 MB file peaks at about 500 MB.
    public var maximumBackupBytes = HawalaFormat.maximumFileBytes
    public init() {}

    /// Whether `host` is a loopback address (anything else is reachable from the network).
    public var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }

    /// The listening address as a Host name the app answers too (nil on loopback).
    var extraAllowedHost: String? { isLoopback ? nil : host }
}

/// `hawala app`: the wallet's screens in a browser, served on this machine by the same binary.
///
/// Security (docs/decisions/0009): only loopback `Host` names are answered; the browser comes in
/// with a one-time 256-bit token exchanged for a session cookie (HttpOnly, SameSite=Strict);
/// the wallet password is the login; every state change carries the session's form token and
/// an `Origin` (or `Sec-Fetch-Site`) naming the app; every answer carries a strict CSP and
/// `no-store`; templates escape everything (no triple braces).
public struct WebApp: Sendable {
    /// The one-time token: `startPath` with it logs the first browser in.
    public let token: String
    let home: WalletHome
    let options: AppOptions
    let sessions: AppSessions
    /// Each unlocked session's Lightning backend, opened once.
    let lightningSessions = LightningSessionCache()
    /// The on-chain syncs running, one per wallet and chain.
    let chainSyncs = ChainSyncs()
    /// Set when the app stops: event streams end.
    let stopping = AppStopping()
    let pages: MustacheLibrary
    /// The files under Static/, by name (app.css, app.js), read once at start.
    let staticFiles: [String: ByteBuffer]
    let bound = BoundPort()
    /// The wallet store, one for the process.
    let store: AppStore
    /// Uploaded backups are read one at a time.
    let imports = OneAtATime()

    /// Loads the templates; the token is made here.
    /// - Throws: `AppError.resourcesMissing` when the templates are not where the binary expects.
    public init(home: WalletHome, options: AppOptions = AppOptions()) async throws {
        guard let templates = Bundle.module.resourceURL?.appendingPathComponent("Templates").path,
              let pages = try? await MustacheLibrary(directory: templates) else { throw AppError.resourcesMissing }
        var staticFiles: [String: ByteBuffer] = [:]
        for name in ["app.css", "app.js"] {
            guard let url = Bundle.module.resourceURL?.appendingPathComponent("Static/\(name)"),
                  let data = try? Data(contentsOf: url) else { throw AppError.resourcesMissing }
            staticFiles[name] = ByteBuffer(bytes: data)
        }
        self.staticFiles = staticFiles
        self.home = home
        self.options = options
        self.pages = pages
        token = AppSessions.randomToken()
        store = AppStore(home: home)
        let saved = (try? await store.existing()?.idleLock()) ?? IdleLock.default
        sessions = AppSessions(token: token, idleLock: options.idleLock?.seconds ?? saved.seconds, now: options.now)
    }

    /// The path that exchanges the token for a session (open it once).
    public var startPath: String { "/start?token=\(token)" }

    /// A new one-time sign-in address (the one printed before stops working).
    public func freshStartURL(port: Int) async -> String {
        let fresh = await sessions.newToken()
        return startURL(port: port).replacingOccurrences(of: token, with: fresh)
    }

    /// The address a browser on this machine opens first.
    public func startURL(port: Int) -> String {
        let host = options.isLoopback ? "127.0.0.1" : (options.host.contains(":") ? "[\(options.host)]" : options.host)
        return "http://\(host):\(port)\(startPath)"
    }

    /// Serves until SIGINT or SIGTERM; `onRunning` hears the bound port.
    /// - Throws: `AppError.portInUse` when the port is taken; the server's error otherwise.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        // Shut down in reverse order: `StopSignal` hears the signal first and ends the event
        // streams, which the server waits for before it stops.
        let logger = Logger(label: "hawala-app")
        let group = ServiceGroup(configuration: .init(services: [
            .init(service: application(logger: logger, onRunning: onRunning)),
            .init(service: StopSignal(stopping: stopping), successTerminationBehavior: .ignore),
        ], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            guard "\(error)".contains("Address already in use") else { throw error }
            throw AppError.portInUse(options.port)
        }
        // Stopped: programs' clients no longer link here (unless another app took its place).
        if let port = bound.port, let store = try? await store.existing(), (try? store.appAddress()) == address(port: port) {
            try? store.setAppAddress(nil)
        }
    }

    /// "http://127.0.0.1:PORT": where this app answers.
    func address(port: Int) -> String { startURL(port: port).replacingOccurrences(of: startPath, with: "") }

    /// The server; `onRunning` hears the bound port.
    public func application(logger: Logger = Logger(label: "hawala-app"),
                            onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: AppRequestContext.self)
        let routes = AppRoutes(app: self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: HostAllowlistMiddleware(bound: bound, extraHost: options.extraAllowedHost))
        router.add(middleware: NotFoundPageMiddleware(routes: routes))
        router.add(middleware: ReturnPathMiddleware())
        router.add(middleware: RefusalMiddleware(routes: routes))
        router.add(middleware: AmountUnitMiddleware(store: store))
        routes.register(on: router)
        let bound = self.bound, store = self.store
        let address: @Sendable (Int) -> String = { [self] port in self.address(port: port) }
        return Application(router: router, configuration: .init(address: .hostname(options.host, port: options.port), serverName: "hawala-app"),
                           services: [IdleLockService(sessions: sessions, lightningSessions: lightningSessions, stopping: stopping)],
                           onServerRunning: { channel in
                               let port = channel.localAddress?.port ?? 0
                               bound.set(port)
                               // Where a program's client sends the person to approve a payment.
                               do { try await store.existing()?.setAppAddress(address(port)) } catch {
                                   logger.warning("the app's address was not saved: programs' clients can't link to Approvals", metadata: ["reason": "\(error)"])
                               }
                               await onRunning(port)
                           }, logger: logger)
    }
}

/// The app's one `WalletStore`, opened the first time it is needed, on a thread of NIO's pool
/// (opening takes the home's lock and may migrate the schema; a busy database can hold it for
/// seconds): pages then read from it without opening anything.
final class AppStore: Sendable {
    let home: WalletHome
    private let opened = Mutex<WalletStore?>(nil)

    init(home: WalletHome) { self.home = home }

    /// The store; with `create`, made first when the home has none.
    /// - Throws: `WalletError.noWallets` when the home has no store and `create` is false.
    func get(create: Bool = false) async throws -> WalletStore {
        if let store = opened.withLock({ $0 }) { return store }
        let home = self.home
        let store = try await NIOThreadPool.singleton.runIfActive { try WalletStore(home: home, create: create) }
        return opened.withLock { existing in
            if let existing { return existing }
            existing = store
            return store
        }
    }

    /// The store, when the home has one.
    func existing() async throws -> WalletStore? {
        if let store = opened.withLock({ $0 }) { return store }
        guard try home.existing() else { return nil }
        return try await get()
    }

    /// What every page shows of the wallets (none yet: empty).
    func overview() async throws -> WalletOverview { try WalletOverview(store: try await existing(), home: home) }
}

/// Every answer shows amounts in the unit chosen (`WalletStore.displayUnit`), read per request:
/// a change made by the CLI shows on the next page.
struct AmountUnitMiddleware<Context: RequestContext>: RouterMiddleware {
    let store: AppStore
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let unit = (try? await store.existing()?.displayUnit()) ?? .sat
        return try await AmountText.$unit.withValue(unit) { try await next(request, context) }
    }
}

/// Locks idle sessions on time (every 10 s), not only at their next request, and closes the
/// Lightning sessions of the ones locked (all of them when the app stops).
struct IdleLockService: Service {
    let sessions: AppSessions
    let lightningSessions: LightningSessionCache
    let stopping: AppStopping

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(10)) } catch { return }
                await sessions.lockIdle()
                await lightningSessions.keep(only: await sessions.unlockedIDs())
            }
        }
        // Event streams end within a second (they would hold the server open).
        stopping.stop()
        // The app is stopping: every backend disconnects (Spark stops its background work).
        await lightningSessions.closeAll()
    }
}

/// Sets `AppStopping` as soon as the app is asked to stop.
struct StopSignal: Service {
    let stopping: AppStopping

    func run() async throws {
        try? await gracefulShutdown()
        stopping.stop()
    }
}

/// Whether the app is stopping (SIGINT, SIGTERM): open event streams end.
final class AppStopping: Sendable {
    private let flag = Atomic<Bool>(false)
    var isStopping: Bool { flag.load(ordering: .acquiring) }
    func stop() { flag.store(true, ordering: .releasing) }
}

/// Why the app could not start.
public enum AppError: Error, Equatable, Sendable, CustomStringConvertible {
    case resourcesMissing
    case portInUse(Int)

    public var description: String {
        switch self {
        case .resourcesMissing: "the app's pages are missing from this installation (HawalaApp's resource bundle)"
        case .portInUse(let port): "port \(port) is in use by another program"
        }
    }
}
