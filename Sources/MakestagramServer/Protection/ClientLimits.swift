import Hummingbird
import MakestagramCore
import MakestagramStore
import NIOCore

/// The core's protection (rate limits, the log-in throttle, the hashing pool), and what HTTP adds to it: the rule for
/// reading a client's address and origin behind trusted proxies. One per server instance.
final class ClientLimits: Sendable {
    let protection: Protection
    let proxies: TrustedProxies

    init(protection: Protection, proxies: TrustedProxies) {
        self.protection = protection
        self.proxies = proxies
    }

    var rates: RateLimits { protection.rates }

    /// The client's address (see ``TrustedProxies``).
    func address(of request: Request, _ context: AppRequestContext) -> String {
        proxies.client(peer: context.remoteAddress, headers: request.headers)
    }

    /// The origin the client reached the server at (`https://host` behind a trusted proxy that terminates TLS), for
    /// the absolute URLs that OAuth metadata and Mastodon's entities carry.
    func origin(of request: Request, _ context: AppRequestContext) -> String {
        origin(of: request, peer: context.remoteAddress)
    }

    func origin(of request: Request, peer: SocketAddress?) -> String {
        let scheme = proxies.isHTTPS(peer: peer, headers: request.headers) ? "https" : "http"
        return "\(scheme)://\(request.head.authority ?? "127.0.0.1")"
    }

    /// Takes one action of `kind` for the user `id`, for what a door itself offers (opening streams, exports).
    func take(_ kind: Protection.Kind, user id: Int64) throws {
        try protection.take(kind, user: id)
    }

    /// Who is using a session, as a request says: its User-Agent and the client's address.
    func client(of request: Request, _ context: AppRequestContext) -> SessionClient {
        SessionClient(userAgent: request.headers[.userAgent], address: address(of: request, context))
    }
}
