import Foundation
import MakestagramAPI
import Synchronization

/// A logged-in session as an app keeps it between launches: which server, which user, and the bearer token.
public struct Credentials: Codable, Sendable, Equatable {
    public var server: URL
    public var token: String
    public var user: UserSummary

    public init(server: URL, token: String, user: UserSummary) {
        self.server = server
        self.token = token
        self.user = user
    }
}

/// Where sessions are kept between launches, one per server: the Keychain on Apple platforms
/// (``KeychainCredentialStore``), a file only its owner can read elsewhere (``FileCredentialStore``).
public protocol CredentialStore: Sendable {
    /// The session kept for `server`, if any.
    func load(server: URL) throws -> Credentials?
    /// Keeps `credentials`, replacing any session for the same server.
    func save(_ credentials: Credentials) throws
    /// Forgets the session for `server`.
    func delete(server: URL) throws
}

/// Keeps sessions in memory only (for tests and for apps that never remember a login).
public final class InMemoryCredentialStore: CredentialStore {
    private let sessions = Mutex<[String: Credentials]>([:])

    public init() {}

    public func load(server: URL) throws -> Credentials? { sessions.withLock { $0[server.absoluteString] } }
    public func save(_ credentials: Credentials) throws {
        sessions.withLock { $0[credentials.server.absoluteString] = credentials }
    }
    public func delete(server: URL) throws { _ = sessions.withLock { $0.removeValue(forKey: server.absoluteString) } }
}

/// The platform's usual store: the Keychain on Apple platforms, a 0600 file in the user's config folder elsewhere.
public func platformCredentialStore() -> any CredentialStore {
    #if canImport(Security)
        KeychainCredentialStore()
    #else
        FileCredentialStore()
    #endif
}
