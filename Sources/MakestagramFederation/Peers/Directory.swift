import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// Finding people on other servers: a handle is looked up with WebFinger on its host, and the actor it links to is
/// fetched and kept.
extension Federation: RemoteDirectory {
    package func resolve(_ handle: String) async throws -> String? {
        let text = handle.trimmingCharacters(in: .whitespaces)
        let uri: String
        if text.hasPrefix("https://") || text.hasPrefix("http://") {
            if isLocal(text) { return localUsername(ofActor: text) }
            uri = text
        } else {
            guard let (user, host) = ActivityStreams.handle(text) else { return nil }
            if host == options.domain { return user }
            if store.domainSeverity(ofHost: String(host.split(separator: ":").first ?? "")) == .suspend { return nil }
            if let known = try await store.profile(username: "\(user)@\(host)", viewer: 0) { return known.username }
            uri = try await webfinger(user: user, host: host)
        }
        if let known = try await store.remoteActor(uri: uri) { return known.username }
        if severity(of: uri) == .suspend { return nil }
        return try await fetchActor(uri).username
    }

    package func refresh(_ username: String) async throws {
        guard let profile = try await store.profile(username: username, viewer: 0),
            let actor = try await store.remoteActor(user: profile.summary.id)
        else { return }
        _ = try await fetchActor(actor.uri)
    }

    /// The actor id WebFinger on `host` gives for `user@host`. Plain HTTP only for a host on a private address, and
    /// only when private peers are allowed.
    func webfinger(user: String, host: String) async throws -> String {
        let hostName = String(host.split(separator: ":").first ?? "")
        let scheme =
            options.allowPrivatePeers && PeerPolicy.resolve(hostName).allSatisfy({ !PeerPolicy.isPublic($0) })
            ? "http" : "https"
        var components = URLComponents()
        components.scheme = scheme
        components.host = hostName
        if let port = host.split(separator: ":").dropFirst().first.flatMap({ Int($0) }) { components.port = port }
        components.path = "/.well-known/webfinger"
        components.queryItems = [URLQueryItem(name: "resource", value: "acct:\(user)@\(host)")]
        guard let url = components.url else { throw InboxRefusal.bad("the handle's host is not usable") }
        let document = try await peers.fetchJSON(url)
        let links = document["links"] as? [JSONObject] ?? []
        guard
            let link = links.first(where: {
                ($0["rel"] as? String) == "self"
                    && (($0["type"] as? String).map { $0.contains("activity+json") || $0.contains("ld+json") } ?? false)
            }), let href = link["href"] as? String
        else { throw InboxRefusal.notFound("\(user)@\(host) has no ActivityPub actor") }
        return href
    }
}
