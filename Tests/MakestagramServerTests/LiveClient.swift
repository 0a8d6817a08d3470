import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import MakestagramAPI
import NIOCore
import Synchronization
import Testing

/// A real WebSocket client of the event stream, for tests: it collects what the server sends and can send
/// subscribe and unsubscribe messages.
final class LiveClient: Sendable {
    struct Timeout: Error {}

    /// What arrived and has not been read yet; `ended` once the socket closed.
    private final class Inbox: Sendable {
        let state = Mutex<(messages: [LiveServerMessage], ended: Bool)>(([], false))
        func withLock<T>(_ body: (inout (messages: [LiveServerMessage], ended: Bool)) -> T) -> T {
            state.withLock { body(&$0) }
        }
    }
    private let inbox = Inbox()
    private let outgoing: AsyncStream<LiveClientMessage>.Continuation
    /// Ends with the close frame the server sent, if any.
    let closed: Task<WebSocketCloseFrame?, any Error>

    /// Connects with a bearer token (or, if `ticket` is given, with `?ticket=` and no token) and waits for the hello.
    static func connect(port: Int, token: String? = nil, ticket: String? = nil) async throws -> LiveClient {
        let client = LiveClient(port: port, token: token, ticket: ticket)
        let hello = try await client.next()
        guard case .hello = hello else { throw Timeout() }
        return client
    }

    /// Opens a socket without waiting for anything.
    init(port: Int, token: String?, ticket: String?) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: LiveClientMessage.self)
        let inbox = self.inbox
        self.outgoing = outgoing
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        let query = ticket.map { "?ticket=\($0)" } ?? ""
        closed = Task {
            defer { inbox.withLock { $0.ended = true } }
            return try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/api/v1/events\(query)",
                configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
                logger: Logger(label: "live-client")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in outgoingStream {
                            let json = try JSONCoding.encoder().encode(message)
                            try await outbound.write(.text(String(decoding: json, as: UTF8.self)))
                        }
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        let decoded = try JSONCoding.decoder().decode(LiveServerMessage.self, from: Data(text.utf8))
                        inbox.withLock { $0.messages.append(decoded) }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    func send(_ message: LiveClientMessage) {
        outgoing.yield(message)
    }

    /// Subscribes and returns the subscribe answer and the snapshots that follow it.
    func subscribe(_ posts: [Int64]) async throws -> (LiveSubscribed, [Post]) {
        send(.subscribe(posts: posts))
        guard case .subscribed(let answer) = try await next(skipping: { $0.type != "subscribed" }) else {
            throw Timeout()
        }
        var snapshots: [Post] = []
        for _ in answer.posts {
            guard case .snapshot(let post) = try await next() else { throw Timeout() }
            snapshots.append(post)
        }
        return (answer, snapshots)
    }

    /// The next message (after those `skipping` says to skip); throws if none comes within the timeout (a guard
    /// against hanging, not a measurement) or the socket closes first.
    func next(
        timeout: Duration = .seconds(20), skipping: (LiveServerMessage) -> Bool = { _ in false }
    ) async throws -> LiveServerMessage {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (message, ended) = inbox.withLock { inbox -> (LiveServerMessage?, Bool) in
                while !inbox.messages.isEmpty {
                    let message = inbox.messages.removeFirst()
                    if !skipping(message) { return (message, false) }
                }
                return (nil, inbox.ended)
            }
            if let message { return message }
            if ended { throw Timeout() }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Timeout()
    }

    /// Everything received and not read yet.
    func drain() -> [LiveServerMessage] {
        inbox.withLock { inbox in
            defer { inbox.messages = [] }
            return inbox.messages
        }
    }

    /// Closes from the client side.
    func close() {
        outgoing.finish()
        closed.cancel()
    }
}
