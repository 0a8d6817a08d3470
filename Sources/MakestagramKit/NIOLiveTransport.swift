#if canImport(WSClient)
    import Foundation
    import HTTPTypes
    import Logging
    import NIOCore
    import NIOWebSocket
    import WSClient

    /// WebSocket over SwiftNIO (hummingbird-project's swift-websocket client): the transport on Linux.
    public struct NIOLiveTransport: LiveTransport {
        /// The largest message accepted (a snapshot of a post with long caption and comments is a few KB).
        public var maxMessageSize = 1 << 20

        public init() {}

        public func run(
            url: URL, headers: [String: String], session: @escaping @Sendable (LiveSocket) async throws -> Void
        ) async throws -> UInt16? {
            var fields = HTTPFields()
            for (name, value) in headers {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
            let maxSize = maxMessageSize
            let close = try await WebSocketClient.connect(
                url: url.absoluteString,
                configuration: .init(maxFrameSize: maxSize, additionalHeaders: fields, autoPing: .disabled),
                logger: Logger(label: "makestagram.live")
            ) { inbound, outbound, _ in
                let (messages, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
                let reader = Task {
                    do {
                        for try await message in inbound.messages(maxSize: maxSize) {
                            if case .text(let text) = message { continuation.yield(text) }
                        }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                defer { reader.cancel() }
                try await session(LiveSocket(messages: messages) { text in try await outbound.write(.text(text)) })
            }
            return close.map { UInt16(webSocketErrorCode: $0.closeCode) }
        }
    }
#endif
