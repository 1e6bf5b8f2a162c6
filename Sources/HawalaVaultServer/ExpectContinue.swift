import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as the request's head arrives, so a
/// client that asks (curl does for bodies over 1 MiB) sends its body at once instead of waiting
/// a second for an answer that never comes. A body larger than `maximumBody` gets no 100: the
/// server answers 413 without reading it.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart
    let maximumBody: Int64

    init(maximumBody: Int64) { self.maximumBody = maximumBody }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data), request.headerFields[.expect]?.lowercased() == "100-continue",
           (request.headerFields[.contentLength].flatMap(Int64.init) ?? 0) <= maximumBody {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
