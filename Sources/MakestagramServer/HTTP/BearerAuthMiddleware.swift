import HTTPTypes
import Hummingbird
import MakestagramCore
import MakestagramStore
import Synchronization

/// Requires `Authorization: Bearer <token>` naming a live session, and puts its user into the context. A token an app
/// holds (OAuth) must have been granted the scope the route needs (``RouteScopes``), or gets 403.
struct BearerAuthMiddleware<S: Store>: RouterMiddleware {
    typealias Context = AppRequestContext
    let accounts: Accounts<S>
    let limits: ClientLimits
    let use = SessionUse()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let token = Self.bearerToken(request.headers) else { throw APIError.unauthorized }
        let hash = SessionToken.hash(token)
        guard let identity = try await accounts.authenticate(tokenHash: hash) else { throw APIError.unauthorized }
        if let granted = identity.scopes {
            let scopes = Scopes(granted) ?? Scopes(values: [])
            if let refusal = RouteScopes.refusal(method: request.method, path: context.endpointPath, scopes: scopes) {
                throw APIError.forbidden(refusal)
            }
        }
        let user = identity.user
        var context = context
        context.user = user
        context.tokenHash = hash
        context.logger[metadataKey: "user"] = .stringConvertible(user.id)
        context.requester.authenticated(as: user.id)
        if use.isDue(hash) {
            let client = limits.client(of: request, context)
            Task { [accounts] in try? await accounts.noteUse(tokenHash: hash, client: client) }
        }
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer …` header, if there is one (read from its bytes: this runs for every
    /// request, and splitting and case-folding strings showed in the profile).
    ///
    /// Not HummingbirdAuth's `headers.bearer`: it matches the prefix `Bearer ` exactly, so it refuses `bearer abc`
    /// and `Bearer  abc`, which RFC 9110 §11.1 allows (the scheme is case-insensitive, spaces may repeat), and it
    /// bounds nothing; answering those clients 401 would change what the API accepts. The cost is not the reason:
    /// both read a few bytes.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let value = headers[.authorization] else { return nil }
        let bytes = Array(value.utf8)
        let scheme = "bearer".utf8
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " "),
            zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        var start = scheme.count + 1
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        guard start < end, end - start <= 512 else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// When this instance last noted each session's use (for its owner's list of sessions): at most once a minute per
/// session, in the background, so that no request waits on it and a busy client costs one write a minute.
final class SessionUse: Sendable {
    private let noted = Mutex<[SessionKey: ContinuousClock.Instant]>([:])
    static let interval = Duration.seconds(60)
    /// Sessions remembered; beyond it the memory starts again (a few more writes, never more memory).
    static let capacity = 100_000

    /// Whether the session's use should be noted now (and, if so, that it is being).
    func isDue(_ tokenHash: [UInt8], now: ContinuousClock.Instant = .now) -> Bool {
        // Hashes of another length are never made by the server; such a session's use is simply not noted.
        guard let key = SessionKey(tokenHash) else { return false }
        return noted.withLock { noted in
            if let last = noted[key], now - last < Self.interval { return false }
            if noted.count >= Self.capacity { noted.removeAll(keepingCapacity: true) }
            noted[key] = now
            return true
        }
    }
}
