import Foundation

/// An open event-stream socket, as the SDK uses it: the text messages coming in, and a way to send one.
public struct LiveSocket: Sendable {
    /// The server's messages, until the socket closes.
    public let messages: AsyncThrowingStream<String, any Error>
    /// Sends a text message.
    public let send: @Sendable (String) async throws -> Void

    public init(
        messages: AsyncThrowingStream<String, any Error>, send: @escaping @Sendable (String) async throws -> Void
    ) {
        self.messages = messages
        self.send = send
    }
}

/// Opens WebSockets. URLSession's WebSocket task works on Apple platforms but not on Linux ("WebSockets not
/// supported by libcurl"), so the SDK speaks WebSocket through this one small protocol:
/// ``URLSessionLiveTransport`` on Apple platforms, ``NIOLiveTransport`` (swift-websocket) on Linux.
public protocol LiveTransport: Sendable {
    /// Connects to `url` with `headers`, runs `session` while the socket is open, and answers the close code the
    /// server sent (nil if it sent none). Throws when the socket could not be opened.
    func run(url: URL, headers: [String: String], session: @escaping @Sendable (LiveSocket) async throws -> Void)
        async throws -> UInt16?
}

/// The platform's WebSocket transport.
public func platformLiveTransport() -> any LiveTransport {
    #if canImport(WSClient)
        NIOLiveTransport()
    #else
        URLSessionLiveTransport()
    #endif
}
