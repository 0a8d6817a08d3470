import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 (with WebSocket upgrade) child channel with the server's own guards around it: a
/// ``ConnectionGuard`` next to the socket and a ``MalformedRequestHandler`` after the HTTP decoder.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limits: ConnectionLimits
    let counter: ConnectionCounter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(limits: limits, counter: counter, logger: logger), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // After the decoder the inner setup added, before the handlers it adds once a request is read.
            try channel.pipeline.syncOperations.addHandler(MalformedRequestHandler())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Answers a request the HTTP decoder cannot parse (bare LF line endings, both `Content-Length` and
/// `Transfer-Encoding`, an oversized head, …) with 400 and closes the connection.
///
/// The first request of a connection that may still upgrade to a WebSocket is parsed before Hummingbird's handlers
/// exist, so its parse error used to go nowhere: the client waited for an answer that never came. Later errors
/// are answered here too, with a problem body, unless a response is under way (Hummingbird then answers after it).
final class MalformedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError,
            let connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self),
            connectionGuard.answerMalformedRequest()
        else { return context.fireErrorCaught(error) }
    }
}
