import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// `Expect: 100-continue` (RFC 9110 §10.1.1): curl, .NET and PHP send it before a large body and wait for the
/// interim answer before sending the body.
///
/// The server answers `100 Continue` when the route starts reading the body, that is once the request head has
/// been accepted (routed, authenticated, within the size limit, of a supported type). A route that answers
/// without reading the body (401, 413, 415, …) sends its final answer at once, and the connection then closes
/// instead of waiting for a body the client will not send.
enum ExpectContinue {
    /// `responder`, with `100 Continue` sent as described.
    static func responder(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            guard let expectation = request.headers[.expect] else {
                return try await responder(request, writer, channel)
            }
            guard expectation.lowercased() == "100-continue" else {
                try await writer.writeResponse(
                    HTTPResponse(status: .expectationFailed, headerFields: [.contentLength: "0", .connection: "close"]))
                throw CloseConnection()
            }
            let sent = Sent()
            var request = request
            request.body = RequestBody(asyncSequence: ContinueOnRead(base: request.body, channel: channel, sent: sent))
            try await responder(request, writer, channel)
            if !sent.value { throw CloseConnection() }
        }
    }

    /// Thrown after the final answer to end the connection (Hummingbird closes it on any error).
    struct CloseConnection: Error {}

    final class Sent: Sendable {
        private let flag = Atomic(false)
        var value: Bool { flag.load(ordering: .relaxed) }
        /// Marks it sent; true for the first caller only.
        func claim() -> Bool { !flag.exchange(true, ordering: .relaxed) }
    }

    /// The request body, preceded by `100 Continue` on the first read.
    struct ContinueOnRead: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let base: RequestBody
        let channel: any Channel
        let sent: Sent

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: RequestBody.AsyncIterator
            let channel: any Channel
            let sent: Sent

            mutating func next() async throws -> ByteBuffer? {
                if sent.claim() {
                    try await channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue)))
                }
                return try await base.next()
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator(), channel: channel, sent: sent)
        }
    }
}
