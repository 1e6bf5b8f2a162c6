import Foundation
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Keeps the number of open client connections under a limit derived from the process's file
/// descriptor limit. At the limit a new connection is let in by closing the connection that has
/// been idle longest (between requests, or never sent one), as nginx does: idle clients holding
/// every descriptor would otherwise stop the server accepting anyone — `/healthz`, a valid
/// user — until their idle timeout. With nothing idle, the connection sending a request body
/// slowest goes, if it has been at it for a second and averages under `minimumBodyRate` (a
/// body trickled a byte at a time); with none such either, the new connection is closed.
final class ConnectionGuard: Sendable {
    /// Connections allowed at once.
    let limit: Int
    /// Bytes a second under which a body still arriving may be cut to let a new client in.
    let minimumBodyRate: Int
    private let state = Mutex(State())

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }
    }

    private struct Entry {
        let channel: any Channel
        /// When it last became idle (a sequence number), nil while a request is in progress.
        var idleSince: UInt64?
        /// When the body now arriving started (its request's head), nil when none is arriving.
        var bodySince: ContinuousClock.Instant?
        var bodyBytes = 0

        /// The rate of the body arriving, bytes a second, once it has been arriving a second.
        func bodyRate(at now: ContinuousClock.Instant) -> Double? {
            guard let bodySince, now - bodySince > .seconds(1) else { return nil }
            return Double(bodyBytes) / (now - bodySince).seconds
        }
    }

    init(limit: Int, minimumBodyRate: Int = 1024) {
        self.limit = max(limit, 1)
        self.minimumBodyRate = minimumBodyRate
    }

    /// The limit for this process: its descriptor limit, less the descriptors already open and a
    /// reserve for storage (database files and connections), TLS files and the metrics port.
    static func fromDescriptorLimit(reserve: Int = 64, minimumBodyRate: Int = 1024) -> ConnectionGuard {
        var limit = rlimit()
        let soft = getrlimit(openFilesResource, &limit) == 0 ? Int(clamping: min(limit.rlim_cur, 1 << 20)) : 1 << 20
        let inUse = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 32
        return ConnectionGuard(limit: soft - inUse - reserve, minimumBodyRate: minimumBodyRate)
    }

    /// Raises the soft descriptor limit to the hard one (what a server should run with).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(openFilesResource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(openFilesResource, &limit)
    }

    /// A handler for one connection's pipeline (after HTTP decoding).
    func handler() -> any RemovableChannelHandler { Handler(guard: self) }

    fileprivate func opened(_ channel: any Channel) {
        let now = ContinuousClock.now
        let victim: (any Channel)? = state.withLock { state in
            state.open[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: state.tick())
            guard state.open.count > limit else { return nil }
            var idle: Entry?, slowest: (entry: Entry, rate: Double)?
            for (key, entry) in state.open where key != ObjectIdentifier(channel) {
                if let since = entry.idleSince {
                    if since < idle?.idleSince ?? .max { idle = entry }
                } else if let rate = entry.bodyRate(at: now), rate < Double(minimumBodyRate), rate < slowest?.rate ?? .infinity {
                    slowest = (entry, rate)
                }
            }
            let chosen = idle?.channel ?? slowest?.entry.channel ?? channel
            state.open[ObjectIdentifier(chosen)] = nil
            return chosen
        }
        victim?.close(promise: nil)
    }

    fileprivate func closed(_ channel: any Channel) { _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) } }

    /// A request's part arrived: its head (busy from now on, its body starts arriving), some of
    /// its body, or its end.
    fileprivate func read(_ part: HTTPRequestPart, on channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            switch part {
            case .head:
                state.open[key]?.idleSince = nil
                state.open[key]?.bodySince = .now
                state.open[key]?.bodyBytes = 0
            case .body(let buffer):
                state.open[key]?.bodyBytes += buffer.readableBytes
            case .end:
                state.open[key]?.bodySince = nil
            }
        }
    }

    /// Its answer went out whole: idle until the next request.
    fileprivate func answered(_ channel: any Channel) {
        state.withLock { state in
            let tick = state.tick()
            state.open[ObjectIdentifier(channel)]?.idleSince = tick
            state.open[ObjectIdentifier(channel)]?.bodySince = nil
        }
    }

    private final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart
        let guardian: ConnectionGuard

        init(guard: ConnectionGuard) { guardian = `guard` }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { guardian.opened(context.channel) }
        }

        func channelActive(context: ChannelHandlerContext) {
            guardian.opened(context.channel)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            guardian.closed(context.channel)
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guardian.read(unwrapInboundIn(data), on: context.channel)
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { guardian.answered(context.channel) }
            context.write(data, promise: promise)
        }
    }
}

/// RLIMIT_NOFILE as `getrlimit` takes it (glibc declares its own enum type for it).
#if canImport(Glibc)
private let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
private let openFilesResource = RLIMIT_NOFILE
#endif
