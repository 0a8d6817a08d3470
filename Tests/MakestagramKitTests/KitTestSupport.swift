import Foundation
import HummingbirdTesting
import MakestagramAPI
import MakestagramKit
import ServerTestSupport
import TestFixtures
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A live server for SDK tests, with a temporary folder for the SDK's caches and credentials.
struct KitServer {
    let url: URL
    let folder: URL

    /// Runs `body` against a fresh server listening on a free loopback port.
    static func run(_ body: @escaping @MainActor @Sendable (KitServer) async throws -> Void) async throws {
        try await TestServer.run(setup: .live) { client, _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let port = try #require(client.port)
            try await body(KitServer(url: URL(string: "http://127.0.0.1:\(port)")!, folder: folder))
        }
    }

    /// An SDK instance as an app would make it, remembering its session and caching in `name`'s folder.
    @MainActor
    func app(_ name: String, transport: any HTTPTransport = URLSessionTransport(), cache: Bool = true) -> Makestagram {
        Makestagram(
            server: url,
            credentials: FileCredentialStore(file: folder.appendingPathComponent("\(name)/credentials.json")),
            cacheDirectory: cache ? folder.appendingPathComponent("\(name)/cache") : nil, transport: transport)
    }

    /// An SDK instance signed up as a new user called `name`.
    @MainActor
    func signedUp(_ name: String, transport: any HTTPTransport = URLSessionTransport(), cache: Bool = true)
        async throws -> Makestagram
    {
        let app = app(name, transport: transport, cache: cache)
        try await app.signUp(username: name, password: "correct horse", displayName: name.capitalized)
        return app
    }
}

/// Waits (up to 10 s) until `condition` holds, checking on the main actor as screens would.
@MainActor
func eventually(
    _ what: String, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("timed out waiting: \(what)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A transport that can be switched offline, or made to answer an error status, and that counts requests.
final class SwitchableTransport: HTTPTransport, @unchecked Sendable {
    enum Mode {
        case online
        case offline
        /// Answers this status (with problem details) to requests whose path contains the text.
        case failing(status: Int, pathContaining: String)
        /// Offline for the next `count` requests, then online.
        case offlineFor(count: Int)
    }

    private let lock = NSLock()
    private var mode = Mode.online
    private var sent: [String] = []
    private let real = URLSessionTransport()

    func set(_ mode: Mode) {
        lock.withLock { self.mode = mode }
    }

    /// "METHOD /path" of every request that reached the transport.
    var requests: [String] { lock.withLock { sent } }

    func send(_ request: URLRequest, progress: (@Sendable (Double) -> Void)?) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        let decision = lock.withLock { () -> Mode in
            sent.append("\(request.httpMethod ?? "GET") \(path)")
            let current = mode
            if case .offlineFor(let count) = mode { mode = count <= 1 ? .online : .offlineFor(count: count - 1) }
            return current
        }
        switch decision {
        case .offline, .offlineFor:
            throw URLError(.notConnectedToInternet)
        case .failing(let status, let text) where path.contains(text):
            let problem = Problem(status: status, code: "test_failure", title: "Failure", detail: "Made to fail.")
            let response = HTTPURLResponse(
                url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/problem+json"])!
            return (try JSONEncoder().encode(problem), response)
        default:
            return try await real.send(request, progress: progress)
        }
    }
}

extension Makestagram {
    /// Shares a fixture photo.
    @discardableResult
    func share(_ photo: String, caption: String = "") async throws -> PostModel {
        try await share(image: Fixtures.photo(photo), fileName: photo, caption: caption)
    }
}
