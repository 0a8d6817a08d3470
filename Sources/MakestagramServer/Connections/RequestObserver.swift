import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Tells the connection's ``ConnectionGuard`` where each request is: head read, body bytes, request read,
/// response sent. It sits after the HTTP decoder, where requests are whole parts, and passes everything on unchanged.
final class RequestObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connectionGuard = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let connectionGuard {
            switch unwrapInboundIn(data) {
            case .head: connectionGuard.requestHeadRead()
            case .body(let buffer): connectionGuard.requestBodyRead(bytes: buffer.readableBytes)
            case .end: connectionGuard.requestEnded()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let connectionGuard, case .end = unwrapOutboundIn(data) {
            connectionGuard.responseEnded()
        }
        context.write(data, promise: promise)
    }
}
