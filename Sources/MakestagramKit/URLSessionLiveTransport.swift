#if canImport(Darwin)
    import Foundation

    /// WebSocket over URLSession's WebSocket task: the transport on Apple platforms.
    public struct URLSessionLiveTransport: LiveTransport {
        let session: URLSession

        public init(session: URLSession = URLSession(configuration: .ephemeral)) {
            self.session = session
        }

        public func run(
            url: URL, headers: [String: String], session body: @escaping @Sendable (LiveSocket) async throws -> Void
        ) async throws -> UInt16? {
            var request = URLRequest(url: url)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let task = session.webSocketTask(with: request)
            task.maximumMessageSize = 1 << 20
            task.resume()
            let messages = AsyncThrowingStream<String, any Error> { continuation in
                let reader = Task {
                    do {
                        while true {
                            switch try await task.receive() {
                            case .string(let text): continuation.yield(text)
                            case .data(let data): continuation.yield(String(decoding: data, as: UTF8.self))
                            @unknown default: break
                            }
                        }
                    } catch {
                        // A socket the server closed ends the stream; its code is read below.
                        continuation.finish()
                    }
                }
                continuation.onTermination = { _ in reader.cancel() }
            }
            try await body(LiveSocket(messages: messages) { text in try await task.send(.string(text)) })
            let code = task.closeCode
            task.cancel(with: .normalClosure, reason: nil)
            return code == .invalid ? nil : UInt16(code.rawValue)
        }
    }
#endif
