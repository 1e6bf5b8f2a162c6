import Foundation
import NIOHTTPTypes
import NIOCore

/// Keeps the number of open client connections under a limit derived from the process's file
/// descriptor limit. At the limit a new connection is let in by closing the connection that has
/// been idle longest (between requests, or never sent one), as nginx does: idle clients holding
/// every descriptor would otherwise stop the server accepting anyone — `/healthz`, a valid
/// user — until their idle timeout. With nothing idle, the new connection is closed.
final class ConnectionGuard: @unchecked Sendable {
    /// Connections allowed at once.
    let limit: Int
    private let lock = NSLock()
    private var open: [ObjectIdentifier: Entry] = [:]
    private var clock: UInt64 = 0

    private struct Entry {
        let channel: any Channel
        /// When it last became idle (a sequence number), nil while a request is in progress.
        var idleSince: UInt64?
    }

    init(limit: Int) { self.limit = max(limit, 1) }

    /// The limit for this process: its descriptor limit, less the descriptors already open and a
    /// reserve for storage (database files and connections), TLS files and the metrics port.
    static func fromDescriptorLimit(reserve: Int = 64) -> ConnectionGuard {
        var limit = rlimit()
        let soft = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: min(limit.rlim_cur, 1 << 20)) : 1 << 20
        let inUse = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 32
        return ConnectionGuard(limit: soft - inUse - reserve)
    }

    /// Raises the soft descriptor limit to the hard one (what a server should run with).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A handler for one connection's pipeline (after HTTP decoding).
    func handler() -> any RemovableChannelHandler { Handler(guard: self) }

    private func tick() -> UInt64 {
        clock += 1
        return clock
    }

    fileprivate func opened(_ channel: any Channel) {
        let victim: (any Channel)? = lock.withLock {
            open[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: tick())
            guard open.count > limit else { return nil }
            var oldest: Entry?
            for (key, entry) in open where key != ObjectIdentifier(channel) {
                if let since = entry.idleSince, since < oldest?.idleSince ?? .max { oldest = entry }
            }
            let chosen = oldest?.channel ?? channel
            open[ObjectIdentifier(chosen)] = nil
            return chosen
        }
        victim?.close(promise: nil)
    }

    fileprivate func closed(_ channel: any Channel) { _ = lock.withLock { open.removeValue(forKey: ObjectIdentifier(channel)) } }

    fileprivate func busy(_ channel: any Channel) { lock.withLock { open[ObjectIdentifier(channel)]?.idleSince = nil } }

    fileprivate func idle(_ channel: any Channel) { lock.withLock { open[ObjectIdentifier(channel)]?.idleSince = tick() } }

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
            if case .head = unwrapInboundIn(data) { guardian.busy(context.channel) }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { guardian.idle(context.channel) }
            context.write(data, promise: promise)
        }
    }
}
