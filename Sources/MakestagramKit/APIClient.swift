import Foundation
import MakestagramAPI
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Talks to one Makestagram server's JSON API: builds requests, sends the bearer token, decodes answers and problem
/// details, and retries idempotent requests that did not get through. Every endpoint is a method (see
/// `APIClient+Endpoints.swift`). Safe to share between tasks.
public final class APIClient: Sendable {
    /// The server's origin, e.g. `http://127.0.0.1:8080`.
    public let server: URL
    let transport: any HTTPTransport
    let retryPolicy: RetryPolicy
    private let tokenStorage: Mutex<String?>

    /// How idempotent requests (GET, PUT, DELETE) are retried when they do not get through or the server is
    /// briefly unavailable. POSTs are never retried: the first may have been applied.
    public struct RetryPolicy: Sendable {
        /// How many times a request is sent at most.
        public var attempts: Int
        /// The wait before the first retry; it doubles for each further one (with ±25% jitter).
        public var initialDelay: Duration

        public init(attempts: Int = 3, initialDelay: Duration = .milliseconds(250)) {
            self.attempts = max(1, attempts)
            self.initialDelay = initialDelay
        }

        /// Sends each request once.
        public static let never = RetryPolicy(attempts: 1)
    }

    /// A client for `server`, sending `token` if given.
    public init(
        server: URL, token: String? = nil, transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.server = server
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.tokenStorage = Mutex(token)
    }

    /// The bearer token sent with each request; nil when logged out.
    public var token: String? {
        get { tokenStorage.withLock { $0 } }
        set { tokenStorage.withLock { $0 = newValue } }
    }

    // MARK: Requests

    /// An HTTP method of the API.
    enum Method: String {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"

        var isIdempotent: Bool { self != .post }
    }

    /// The URL of `path` under `/api/v1`, with `query` items whose values are not nil.
    func url(_ path: String, query: [String: String?] = [:]) -> URL {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false) ?? URLComponents()
        // Segments arrive percent-encoded (see `segment`); setting `path` would encode their `%` again.
        components.percentEncodedPath = "/api/v1" + path
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        components.queryItems = items.isEmpty ? nil : items.sorted { $0.name < $1.name }
        return components.url ?? server
    }

    /// Sends a request and decodes its JSON answer.
    func send<Answer: Decodable>(
        _ method: Method, _ path: String, query: [String: String?] = [:], json: (any Encodable)? = nil,
        as type: Answer.Type = Answer.self
    ) async throws -> Answer {
        let data = try await sendForData(method, path, query: query, json: json)
        do {
            return try JSONCoding.decoder().decode(Answer.self, from: data)
        } catch {
            throw MakestagramError.invalidResponse("\(Answer.self): \(error)")
        }
    }

    /// Sends a request whose answer has no body.
    func sendWithoutAnswer(_ method: Method, _ path: String, json: (any Encodable)? = nil) async throws {
        _ = try await sendForData(method, path, json: json)
    }

    /// Sends a request and answers its body, throwing the server's problem for an error status.
    func sendForData(
        _ method: Method, _ path: String, query: [String: String?] = [:], json: (any Encodable)? = nil,
        body: (data: Data, contentType: String)? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Data {
        var request = URLRequest(url: url(path, query: query))
        request.httpMethod = method.rawValue
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONCoding.encoder().encode(json)
        } else if let body {
            request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = body.data
        }
        let attempts = method.isIdempotent ? retryPolicy.attempts : 1
        var delay = retryPolicy.initialDelay
        for attempt in 1...attempts {
            let outcome: Result<(Data, HTTPURLResponse), MakestagramError>
            do {
                outcome = .success(try await transport.send(request, progress: progress))
            } catch {
                outcome = .failure(MakestagramError.transport(error))
            }
            switch outcome {
            case .success(let (data, response)) where (200..<300).contains(response.statusCode):
                return data
            case .success(let (data, response)):
                let problem = Self.problem(data, status: response.statusCode)
                let transient = [429, 502, 503, 504].contains(response.statusCode)
                guard transient, attempt < attempts else { throw MakestagramError.server(problem) }
                if let seconds = response.value(forHTTPHeaderField: "Retry-After").flatMap(Int.init) {
                    delay = max(delay, .seconds(min(seconds, 30)))
                }
            case .failure(let error):
                guard error.isOffline, attempt < attempts else { throw error }
            }
            try await Task.sleep(for: delay * Double.random(in: 0.75...1.25))
            delay *= 2
        }
        throw MakestagramError.offline("no attempt was made")
    }

    /// The problem details in an error answer, or one made up from the status when the body is not one.
    static func problem(_ data: Data, status: Int) -> Problem {
        if let problem = try? JSONDecoder().decode(Problem.self, from: data) { return problem }
        return Problem(
            status: status, code: "http_\(status)", title: HTTPURLResponse.localizedString(forStatusCode: status),
            detail: "The server answered \(status).")
    }
}
