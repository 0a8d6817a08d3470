// MakestagramFederation: the ActivityPub door. Other servers find people here (WebFinger, NodeInfo), read them and
// their posts (actor and Note documents), and send what their people do to the inboxes; each accepted activity calls
// the same use cases (MakestagramCore) the native and Mastodon APIs call. Requests both ways are signed (HTTP
// Signatures, one RSA key per actor) and every peer address is checked before it is reached (PeerPolicy).

import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import ServiceLifecycle

/// A JSON object as ActivityStreams documents are read and written here.
public typealias JSONObject = [String: Any]

/// How this server takes part in the fediverse: the origin it is known by, and whether private peers may be reached.
public struct FederationOptions: Sendable {
    /// The origin (`https://example.social`), without a trailing slash.
    public var publicURL: URL
    public var allowPrivatePeers: Bool

    public init(publicURL: URL, allowPrivatePeers: Bool = false) {
        self.publicURL = publicURL
        self.allowPrivatePeers = allowPrivatePeers
    }

    /// The origin as text, without a trailing slash.
    public var base: String {
        var text = publicURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The host people's handles are on (`alice@host`): the public URL's host, with its port when it has one.
    public var domain: String {
        ActivityStreams.domain(of: publicURL) ?? ""
    }
}

/// The ActivityPub side of one server: its documents, its inbox and what it sends.
public final class Federation<S: Store>: Sendable {
    public let options: FederationOptions
    let core: Core<S>
    let keys: ActorKeys
    let peers: PeerClient
    let logger: Logger
    /// Remote actors read lately (``RemoteActors``); the store's events must reach it.
    let remoteActors: RemoteActors

    package init(
        core: Core<S>, options: FederationOptions, logger: Logger, remoteActors: RemoteActors = RemoteActors()
    ) {
        self.core = core
        self.options = options
        self.remoteActors = remoteActors
        self.keys = ActorKeys(store: core.store)
        let store = core.store
        self.peers = PeerClient(
            policy: PeerPolicy(allowPrivatePeers: options.allowPrivatePeers),
            isSuspended: { host in store.domainSeverity(ofHost: host) == .suspend })
        self.logger = logger
    }

    var store: S { core.store }

    // MARK: Ids

    public var instanceActorURI: String { "\(options.base)/actor" }
    public func actorURI(_ username: String) -> String { "\(options.base)/users/\(username)" }
    public func postURI(_ id: Int64) -> String { "\(options.base)/p/\(id)" }
    public var sharedInbox: String { "\(options.base)/inbox" }

    /// The local username an actor id names, if it is one of ours.
    func localUsername(ofActor uri: String) -> String? {
        let prefix = "\(options.base)/users/"
        guard uri.hasPrefix(prefix) else { return nil }
        let name = String(uri.dropFirst(prefix.count))
        return name.isEmpty || name.contains("/") || name.contains("@") ? nil : name
    }

    /// The local post an id names, if it is one of ours.
    func localPostID(_ uri: String) -> Int64? {
        let prefix = "\(options.base)/p/"
        guard uri.hasPrefix(prefix) else { return nil }
        return Int64(uri.dropFirst(prefix.count))
    }

    /// Whether `uri` is on this server's origin.
    func isLocal(_ uri: String) -> Bool {
        guard let url = URL(string: uri) else { return false }
        return ActivityStreams.origin(of: url) == ActivityStreams.origin(of: options.publicURL)
    }

    /// The strongest moderators' block covering the host of `uri`.
    func severity(of uri: String) -> DomainBlockSeverity? {
        guard let host = URL(string: uri)?.host(percentEncoded: false) else { return nil }
        return store.domainSeverity(ofHost: host)
    }

    /// The signer of requests made for `user` (the instance actor when nil).
    func signer(for user: UserSummary?) -> PeerClient.Signer {
        let keyID = user.map { "\(actorURI($0.username))#main-key" } ?? "\(instanceActorURI)#main-key"
        let keys = keys
        let id = user?.id
        return { (keyID, try await keys.key(for: id)) }
    }

    public func shutdown() async {
        try? await peers.shutdown()
    }

    /// What runs beside the server: federation's consumer of the change log, woken by `bell`, and the worker that
    /// sends what it queues.
    package func services(bell: ChangeBell) -> [any Service] {
        let worker = DeliveryWorker(federation: self)
        return [FederationConsumer(federation: self, bell: bell, worker: worker), worker]
    }

}
