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
import Synchronization

/// A JSON object as ActivityStreams documents are read and written here.
public typealias JSONObject = [String: Any]

/// How this server takes part in the fediverse: the origin it is known by, and whether private peers may be reached.
public struct FederationOptions: Sendable {
    /// The origin (`https://example.social`), without a trailing slash.
    public var publicURL: URL
    public var allowPrivatePeers: Bool
    /// How long a server may fail, without answering once, before it is no longer tried until it sends something.
    public var stopTryingAfter: TimeInterval
    /// The most bytes of other servers' photos kept here, and the longest each is kept (nil: no limit); what is over
    /// is removed, the longest kept first, and fetched again when asked for.
    public var remoteMediaBudget: Int?
    public var remoteMediaMaxAge: TimeInterval?

    public init(
        publicURL: URL, allowPrivatePeers: Bool = false, stopTryingAfter: TimeInterval = 7 * 86_400,
        remoteMediaBudget: Int? = nil, remoteMediaMaxAge: TimeInterval? = nil
    ) {
        self.publicURL = publicURL
        self.allowPrivatePeers = allowPrivatePeers
        self.stopTryingAfter = stopTryingAfter
        self.remoteMediaBudget = remoteMediaBudget
        self.remoteMediaMaxAge = remoteMediaMaxAge
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
    /// Which servers fail, and since when.
    let health: ServerHealth
    /// The operator's budget for other servers' photos.
    let remoteMedia: RemoteMediaBudget
    /// The Notes whose posts are being kept now, by their sender and id.
    let notesBeingKept = SharedWork<NoteKey, Void>()
    /// The inboxes of each author's remote followers, for federation's consumer.
    let followerInboxes = FollowerInboxes()
    /// The worker that sends deliveries, once ``services(bell:)`` made it.
    private let worker = Mutex<DeliveryWorker<S>?>(nil)

    package init(
        core: Core<S>, options: FederationOptions, logger: Logger, remoteActors: RemoteActors = RemoteActors(),
        keys: ActorKeys = ActorKeys()
    ) {
        self.core = core
        self.options = options
        self.remoteActors = remoteActors
        self.health = ServerHealth(giveUpAfter: options.stopTryingAfter)
        self.remoteMedia = RemoteMediaBudget(maxBytes: options.remoteMediaBudget, maxAge: options.remoteMediaMaxAge)
        keys.use(core.store)
        self.keys = keys
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
    /// A comment's id elsewhere: the id of the reply it is there.
    public func commentURI(_ id: Int64) -> String { "\(options.base)/comments/\(id)" }
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

    /// The ID of the local comment `uri` names (`<base>/comments/<id>`, the id of its reply elsewhere), if it names one.
    func localCommentID(_ uri: String) -> Int64? {
        let prefix = "\(options.base)/comments/"
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
        self.worker.withLock { $0 = worker }
        return [
            FederationConsumer(federation: self, bell: bell, worker: worker), worker,
            RemoteMediaService(federation: self),
        ]
    }

    // MARK: Servers

    /// Reads what every instance found of other servers, and how many deliveries wait.
    func readHealth() async throws {
        let pending = try await store.pendingDeliveries().reduce(0) { $0 + $1.count }
        health.replace(try await store.deliveryServers(), pending: pending)
    }

    /// Notes that a signed activity came from the server of `actorURI`: if it was failing, it is tried again.
    func heard(fromActor actorURI: String) async {
        guard let url = URL(string: actorURI), let server = ActivityStreams.domain(of: url),
            health.failing(server) != nil
        else { return }
        _ = health.heard(server)
        try? await store.heardFrom(server: server)
    }

    /// How deliveries to each server go, the servers failing longest first, then those with deliveries waiting.
    public func deliveryServers() async throws -> [DeliveryServer] {
        var pending: [String: (count: Int, next: Date)] = [:]
        for (inbox, count, next) in try await store.pendingDeliveries() {
            guard let url = URL(string: inbox), let server = ActivityStreams.domain(of: url) else { continue }
            let known = pending[server]
            pending[server] = ((known?.count ?? 0) + count, min(known?.next ?? next, next))
        }
        var servers: [DeliveryServer] = []
        for record in try await store.deliveryServers() {
            let waiting = pending.removeValue(forKey: record.server)
            servers.append(
                DeliveryServer(
                    server: record.server, lastDeliveredAt: record.lastDelivered, lastFailedAt: record.lastFailed,
                    failingSince: record.failingSince, failures: record.failures, lastError: record.lastError,
                    pending: waiting?.count ?? 0, nextAttemptAt: waiting?.next,
                    givenUp: record.failingSince.map { Date().timeIntervalSince($0) >= options.stopTryingAfter }
                        ?? false,
                    blocked: severity(ofServer: record.server)))
        }
        for (server, waiting) in pending.sorted(by: { $0.key < $1.key }) {
            servers.append(
                DeliveryServer(
                    server: server, pending: waiting.count, nextAttemptAt: waiting.next,
                    blocked: severity(ofServer: server)))
        }
        return servers
    }

    /// Gives the local person `username` a new key: the old one stops signing at once on every instance, and the
    /// servers of their followers are sent an `Update` with the new one (they read it again to check it).
    public func rotateKey(of username: String) async throws {
        guard let profile = try await store.profile(username: username, viewer: 0),
            try await store.remoteActor(user: profile.id) == nil
        else { throw StoreError.notFound("user") }
        try await keys.rotate(user: profile.id)
    }

    /// Tries `server` again now: it is no longer taken as failing, and its waiting deliveries are due at once.
    /// Answers how many deliveries are due.
    public func retry(server: String) async throws -> Int {
        _ = health.heard(server)
        try await store.heardFrom(server: server)
        worker.withLock { $0 }?.wakeUp(server)
        let inboxes = try await store.pendingDeliveries().map(\.inbox).filter { inbox in
            URL(string: inbox).flatMap { ActivityStreams.domain(of: $0) } == server
        }
        return try await store.retryDeliveries(inboxes: inboxes)
    }

    /// The moderators' block covering a server named by host and port.
    func severity(ofServer server: String) -> DomainBlockSeverity? {
        store.domainSeverity(ofHost: String(server.split(separator: ":").first ?? ""))
    }
}
