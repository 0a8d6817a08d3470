import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MakestagramAPI
import MakestagramServer
import NIOCore
import TestFixtures
import Testing

/// A fresh server on its own temporary data folder, removed afterwards.
public enum TestServer {
    public static func run(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        setup: TestingSetup = .router,
        test: @Sendable (any TestClientProtocol, URL) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("makestagram-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = folder
        configuration.port = 0
        configuration.logLevel = .warning
        configure(&configuration)
        let app = try await buildApplication(configuration)
        try await app.test(setup) { client in try await test(client, folder) }
    }
}

/// A signed-up user of a test server.
public struct TestUser: Sendable {
    public var profile: UserProfile
    public var token: String
    public init(profile: UserProfile, token: String) {
        self.profile = profile
        self.token = token
    }

    public var auth: HTTPFields { [.authorization: "Bearer \(token)"] }
}

extension TestClientProtocol {
    public func send(
        _ method: HTTPRequest.Method, _ uri: String, as user: TestUser? = nil, json: (any Encodable)? = nil,
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        if let user { headers.append(contentsOf: user.auth) }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONCoding.encoder().encode(json))
        }
        return try await executeRequest(uri: uri, method: method, headers: headers, body: body)
    }

    /// Sends a request and decodes a successful answer.
    public func call<T: Decodable>(
        _ method: HTTPRequest.Method, _ uri: String, as user: TestUser? = nil, json: (any Encodable)? = nil,
        expect status: HTTPResponse.Status = .ok, _ type: T.Type = T.self,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        let response = try await send(method, uri, as: user, json: json)
        #expect(response.status == status, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try JSONCoding.decoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// Sends a request that must fail and answers its problem details.
    public func problem(
        _ method: HTTPRequest.Method, _ uri: String, as user: TestUser? = nil, json: (any Encodable)? = nil,
        headers: HTTPFields = [:], body: ByteBuffer? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Problem {
        let response: TestResponse
        if let body {
            var headers = headers
            if let user { headers.append(contentsOf: user.auth) }
            response = try await executeRequest(uri: uri, method: method, headers: headers, body: body)
        } else {
            response = try await send(method, uri, as: user, json: json, headers: headers)
        }
        #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let problem = try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
        #expect(problem.status == Int(response.status.code), sourceLocation: sourceLocation)
        return problem
    }

    public func signUp(_ username: String, password: String = "correct horse") async throws -> TestUser {
        let answer: AuthResponse = try await call(
            .post, "/api/v1/accounts",
            json: SignUpRequest(username: username, password: password, displayName: username.capitalized),
            expect: .created)
        return TestUser(profile: answer.user, token: answer.token)
    }

    /// Posts a fixture photo as multipart/form-data.
    public func upload(
        _ photo: String, caption: String = "", crop: String? = nil, as user: TestUser, data: Data? = nil
    ) async throws -> TestResponse {
        var fields = ["caption": Data(caption.utf8)]
        if let crop { fields["crop"] = Data(crop.utf8) }
        let (body, contentType) = Multipart.body(fields: fields, file: ("image", photo, data ?? Fixtures.photo(photo)))
        var headers = user.auth
        headers[.contentType] = contentType
        return try await executeRequest(uri: "/api/v1/posts", method: .post, headers: headers, body: body)
    }

    public func post(_ photo: String, caption: String = "", crop: String? = nil, as user: TestUser) async throws -> Post
    {
        let response = try await upload(photo, caption: caption, crop: crop, as: user)
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try JSONCoding.decoder().decode(Post.self, from: Data(buffer: response.body))
    }
}

/// Builds multipart/form-data bodies.
public enum Multipart {
    public static func body(fields: [String: Data], file: (field: String, name: String, data: Data)?) -> (
        ByteBuffer, String
    ) {
        let boundary = "----makestagram-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8))
            body.append(value)
            body.append(Data("\r\n".utf8))
        }
        if let file {
            body.append(
                Data(
                    ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\n"
                        + "Content-Type: image/jpeg\r\n\r\n").utf8))
            body.append(file.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return (ByteBuffer(bytes: body), "multipart/form-data; boundary=\(boundary)")
    }
}
