import Foundation
import MakestagramAPI

/// A person on another server, as this server knows them. Each has a row among the users (named `user@host`, a
/// name no local account can take, and with no password), so that they follow, like and are counted exactly as local
/// people are; this record holds what federation needs besides.
public struct RemoteActor: Sendable, Equatable {
    /// Their row among the users.
    public var userID: Int64
    /// `user@host`.
    public var username: String
    /// Their ActivityPub id (the actor document's URL).
    public var uri: String
    public var inbox: String
    /// Their server's shared inbox, if it has one.
    public var sharedInbox: String?
    /// The id of their public key, and the key (PEM).
    public var keyID: String
    public var publicKeyPEM: String
    /// Their profile page on their own server.
    public var profileURL: String?
    /// Where their avatar was fetched from.
    public var iconURL: String?

    public init(
        userID: Int64, username: String, uri: String, inbox: String, sharedInbox: String?, keyID: String,
        publicKeyPEM: String, profileURL: String?, iconURL: String? = nil
    ) {
        self.userID = userID
        self.username = username
        self.uri = uri
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.profileURL = profileURL
        self.iconURL = iconURL
    }

    /// Where deliveries for them go: their server's shared inbox, or else their own.
    public var deliveryInbox: String { sharedInbox ?? inbox }
}

/// What an actor document said, to be kept (``FederationStoring/saveRemoteActor(_:)``).
public struct RemoteActorDocument: Sendable, Equatable {
    public var uri: String
    /// `user@host`, their handle.
    public var username: String
    public var displayName: String
    public var bio: String
    public var inbox: String
    public var sharedInbox: String?
    public var keyID: String
    public var publicKeyPEM: String
    public var profileURL: String?
    public var isPrivate: Bool
    /// Their avatar's URL there.
    public var iconURL: String?

    public init(
        uri: String, username: String, displayName: String, bio: String, inbox: String, sharedInbox: String?,
        keyID: String, publicKeyPEM: String, profileURL: String?, isPrivate: Bool, iconURL: String? = nil
    ) {
        self.uri = uri
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.profileURL = profileURL
        self.isPrivate = isPrivate
        self.iconURL = iconURL
    }
}

/// An activity another server sent, as remembered: so that the same id applied twice changes nothing, and an `Undo`
/// or `Delete` that names only an id finds what it takes back.
public struct InboundActivity: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case follow, like, comment
    }

    public var id: String
    public var actor: Int64
    public var kind: Kind
    /// What it acted on: the followed user's ID, the liked post's ID, or the comment's ID.
    public var object: Int64

    public init(id: String, actor: Int64, kind: Kind, object: Int64) {
        self.id = id
        self.actor = actor
        self.kind = kind
        self.object = object
    }
}

/// An activity to send to one inbox, as federation's consumer of the change log queues it.
public struct OutboundDelivery: Sendable, Equatable {
    /// The activity's id: with the inbox, what makes a delivery one (queued twice, sent once).
    public var activityID: String
    public var inbox: String
    /// Whose key signs it: a local user, or the instance actor when nil.
    public var sender: Int64?
    public var body: Data

    public init(activityID: String, inbox: String, sender: Int64?, body: Data) {
        self.activityID = activityID
        self.inbox = inbox
        self.sender = sender
        self.body = body
    }
}

/// A queued delivery taken to be sent (``FederationStoring/claimDeliveries(limit:lease:)``).
public struct QueuedDelivery: Sendable, Equatable {
    public var id: Int64
    public var delivery: OutboundDelivery
    /// How many times it has been taken, this time included.
    public var attempts: Int

    public init(id: Int64, delivery: OutboundDelivery, attempts: Int) {
        self.id = id
        self.delivery = delivery
        self.attempts = attempts
    }
}

/// Deliveries taken as they are queued (``FederationStoring/queueDeliveries(_:farewells:consumer:batch:taking:)``):
/// the first `limit` of them, each for `lease`; the rest wait in the queue for whichever instance claims them first.
public struct DeliveryTake: Sendable, Equatable {
    public var lease: Duration
    public var limit: Int

    public init(lease: Duration, limit: Int) {
        self.lease = lease
        self.limit = limit
    }
}

/// How a delivery attempt ended.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The inbox took it (a 2xx).
    case delivered(status: Int)
    /// It failed and is tried again at `at`.
    case retry(at: Date, status: Int?, error: String)
    /// It failed for good (an answer that cannot change, or two days of failures).
    case gaveUp(status: Int?, error: String)
}

/// Where a post from another server came from: its `Note`'s id, its page there (a web address, if it has one), and
/// for each photo in the post's order, the address it was fetched from and the files the photo pipeline made of it.
/// The photos' records go with the post.
public struct RemotePostOrigin: Sendable {
    public var uri: String
    public var url: String?
    public var photos: [(source: String, files: [String])]
    /// Addressed to its author's followers only: kept only while the author is private here.
    public var followersOnly: Bool

    public init(uri: String, url: String?, photos: [(source: String, files: [String])], followersOnly: Bool = false) {
        self.uri = uri
        self.url = url
        self.photos = photos
        self.followersOnly = followersOnly
    }
}

/// A photo of a post from another server, as kept here: where it was fetched from and the files the photo pipeline
/// made of it, in the order it makes them (full, thumbnail, then each responsive variant).
public struct RemoteMedia: Sendable, Equatable {
    public var id: Int64
    public var source: String
    public var files: [String]
    public var keptAt: Date
    /// Whether its files were removed to keep within the operator's budget (they are fetched again when asked for).
    public var evicted: Bool

    public init(id: Int64, source: String, files: [String], keptAt: Date, evicted: Bool) {
        self.id = id
        self.source = source
        self.files = files
        self.keptAt = keptAt
        self.evicted = evicted
    }
}

/// How a server answered one delivery: it took it (or refused it for good: it is up), or it did not answer, or
/// answered a 5xx or 429 (`error`).
public struct ServerResult: Sendable, Equatable {
    /// Host and port.
    public var server: String
    public var answered: Bool
    public var error: String?

    public init(server: String, answered: Bool, error: String? = nil) {
        self.server = server
        self.answered = answered
        self.error = error
    }
}

/// How deliveries to one server went lately (``FederationStoring/deliveryServers()``).
public struct ServerRecord: Sendable, Equatable {
    public var server: String
    public var lastDelivered: Date?
    public var lastFailed: Date?
    /// Since when it fails without answering in between; nil while it answers.
    public var failingSince: Date?
    /// Failures in a row.
    public var failures: Int
    public var lastError: String?

    public init(
        server: String, lastDelivered: Date?, lastFailed: Date?, failingSince: Date?, failures: Int, lastError: String?
    ) {
        self.server = server
        self.lastDelivered = lastDelivered
        self.lastFailed = lastFailed
        self.failingSince = failingSince
        self.failures = failures
        self.lastError = lastError
    }
}

/// Federation: the keys local actors sign with, the people of other servers this one knows, and the activities they
/// sent. Part of ``Store``; both stores implement it.
public protocol FederationStoring: Sendable {
    /// The private key (DER) `user` signs with, or the instance actor's when `user` is nil; nil when none was made
    /// yet.
    func actorKey(user: Int64?) async throws -> Data?
    /// Keeps `key` as the private key of `user` (the instance actor's when nil) unless one is kept already, and
    /// answers the one kept: two instances making a key at once agree on one.
    func saveActorKey(user: Int64?, key: Data) async throws -> Data
    /// Replaces the private key `user` signs with, and publishes ``StoreEvent/profileChanged(user:)``: every
    /// instance forgets the old key, and their followers' servers are sent the new one. Throws `notFound` for an
    /// unknown or remote user.
    func replaceActorKey(user: Int64, key: Data) async throws

    /// Keeps what `document` says of a remote person (their row among the users is made the first time, and their
    /// name, bio, key and inboxes follow later documents) and answers them. They stay private, whatever the
    /// document says, while posts of theirs for their followers only are kept (``followersOnlyRemotePosts(of:)``).
    func saveRemoteActor(_ document: RemoteActorDocument) async throws -> RemoteActor
    /// The remote person whose ActivityPub id is `uri`.
    func remoteActor(uri: String) async throws -> RemoteActor?
    /// The remote person whose row among the users is `user`; nil for a local one.
    func remoteActor(user: Int64) async throws -> RemoteActor?
    /// The people here from the server `domain` or its subdomains, by ID with their usernames.
    func remoteUsers(onDomain domain: String) async throws -> [(id: Int64, username: String)]
    /// The inboxes that reach every remote follower of `user`, each once (shared inboxes where servers have them).
    func remoteFollowerInboxes(of user: Int64) async throws -> [String]
    /// An inbox on every server someone here came from, each server once (its shared inbox where it has one): where
    /// a deleted account's `Delete` goes, as Mastodon sends it, since any of them may hold its posts.
    func knownInboxes() async throws -> [String]
    /// The user `id` if their account is active, or being deleted (`leaving`: only their farewell is still sent for
    /// them); nil otherwise.
    func sender(id: Int64) async throws -> (user: UserSummary, leaving: Bool)?
    /// The ID of the local account `username` if it is being deleted and its actor key is still kept (its farewell
    /// is being sent): its actor document still shows the key, so that other servers can check the farewell.
    func leavingUser(username: String) async throws -> Int64?

    /// How many active local people there are, and how many posts they have (NodeInfo's usage).
    func localUsage() async throws -> (users: Int, posts: Int)

    /// Remembers `activity`; false when its id was remembered already (it was applied before).
    func rememberInbound(_ activity: InboundActivity) async throws -> Bool
    /// Adds the comment of remote person `author` (as ``InteractionStoring/addComment(postID:author:text:)`` does)
    /// and remembers it as the reply `note`, in one transaction: a second delivery of the Note finds it. Nil, with
    /// nothing changed, when `note` was remembered already.
    func addRemoteComment(postID: Int64, author: Int64, text: String, note: String) async throws -> Comment?
    /// The remembered activity whose id is `id`.
    func inbound(id: String) async throws -> InboundActivity?
    /// Forgets the remembered activity `id` (it was taken back).
    func forgetInbound(id: String) async throws
    /// The id of the `Follow` by which remote person `actor` follows (or asked to follow) `target`, if remembered.
    func inboundFollow(actor: Int64, target: Int64) async throws -> String?

    /// Posts, as remote person `userID`, the photos uploaded for them (as ``PostStoring/createPost(fromUploads:userID:caption:)``
    /// does) with where the post and its photos came from, in one transaction: nobody sees the post without its
    /// origin. Nil, with nothing changed, when another post shows `origin.uri` already. A post for the author's
    /// followers only (`origin.followersOnly`) is refused (``StoreError/forbidden``) unless the author is private.
    func createRemotePost(fromUploads ids: [Int64], userID: Int64, caption: String, origin: RemotePostOrigin)
        async throws -> Post?
    /// The posts of remote person `userID` kept for their followers only. While there are any,
    /// ``saveRemoteActor(_:)`` keeps the person private whatever their document says: removed first, they can turn
    /// public without showing those posts to everyone.
    func followersOnlyRemotePosts(of userID: Int64) async throws -> [Int64]
    /// The local post that shows the remote `Note` `uri`.
    func remotePost(uri: String) async throws -> Int64?
    /// Which of `posts` came from other servers.
    func remotePosts(among posts: [Int64]) async throws -> Set<Int64>
    /// The id and page of the remote `Note` that each of `posts` shows, by post; posts made here are left out.
    func remotePostURIs(of posts: [Int64]) async throws -> [Int64: (uri: String, url: String?)]

    /// The photos from other servers whose files are here, the longest kept first.
    func keptRemoteMedia() async throws -> [RemoteMedia]
    /// The photo from another server one of whose files is `file`.
    func remoteMedia(file: String) async throws -> RemoteMedia?
    /// Notes that the files of `ids` were removed (`evicted`), or are here again, kept from now.
    func markRemoteMedia(_ ids: [Int64], evicted: Bool) async throws

    /// Makes `consumer` a durable consumer of the change log, from the log's end, unless it is one already.
    func joinChangeLog(consumer: String) async throws
    /// Stops keeping the log for `consumer` (federation was turned off).
    func leaveChangeLog(consumer: String) async throws
    /// Queues `deliveries` (a delivery already queued, same activity and inbox, is left as it is), ends the farewells
    /// of `farewells` (accounts being deleted whose `Delete` is among them,
    /// ``AccountDeletionStoring/continueAccountDeletion(userID:limit:)``) and moves `consumer` from `batch.from` to
    /// `batch.to`, in one transaction. With a `take`, the first of the deliveries queued (up to its limit) are also
    /// taken, as ``claimDeliveries(limit:lease:)`` takes them, and answered (in their order), so that the instance
    /// that queued them sends them without a second transaction; without one, nothing is answered. Nil, and nothing
    /// written, when the consumer no longer stands at `batch.from`.
    func queueDeliveries(
        _ deliveries: [OutboundDelivery], farewells: [Int64], consumer: String, batch: ChangeBatch,
        taking take: DeliveryTake?
    ) async throws -> [QueuedDelivery]?
    /// Takes up to `limit` queued deliveries whose time has come, oldest first, and keeps them from being taken
    /// again for `lease` (by this or another instance) while they are sent.
    func claimDeliveries(limit: Int, lease: Duration) async throws -> [QueuedDelivery]
    /// Records how attempts at deliveries ended, by delivery ID, and how their servers answered, in one transaction.
    /// A delivery that ended (delivered, or given up) keeps its activity id and inbox, so that the same activity is
    /// not queued to the inbox again, and drops its body: nothing sends it again.
    func finishDeliveries(_ outcomes: [(id: Int64, outcome: DeliveryOutcome)], servers: [ServerResult]) async throws
    /// How deliveries to each server went lately, the servers failing longest first.
    func deliveryServers() async throws -> [ServerRecord]
    /// Notes that `server` sent something (a signed activity): it is up, whatever deliveries found.
    func heardFrom(server: String) async throws
    /// The deliveries waiting, by inbox: how many, and when the next is due.
    func pendingDeliveries() async throws -> [(inbox: String, count: Int, next: Date)]
    /// Makes the waiting deliveries to `inboxes` due now; answers how many.
    func retryDeliveries(inboxes: [String]) async throws -> Int
    /// Forgets deliveries finished (sent or given up) before `date`.
    func purgeDeliveries(finishedBefore date: Date) async throws
    /// Called as the delivery worker starts. On a store only one process uses (SQLite), deliveries taken by a process
    /// that stopped are due again at once: those never tried (no answer or error recorded) that are due within
    /// `lease`, which only a lease puts there. A store several instances share (PostgreSQL) leaves each to its lease:
    /// its instance may still be sending it.
    func releaseStaleLeases(_ lease: Duration) async throws
}

extension FederationStoring {
    /// The name of federation's consumer of the change log: while it is in the log, accounts being deleted wait for
    /// their farewell (``AccountDeletionStoring/continueAccountDeletion(userID:limit:)``).
    public static var federationConsumer: String { "federation" }

    /// Queues `deliveries` and moves `consumer` (``queueDeliveries(_:farewells:consumer:batch:taking:)``), ending no
    /// farewell and taking none.
    public func queueDeliveries(_ deliveries: [OutboundDelivery], consumer: String, batch: ChangeBatch) async throws
        -> Bool
    {
        try await queueDeliveries(deliveries, farewells: [], consumer: consumer, batch: batch, taking: nil) != nil
    }

    /// The id and page of the remote `Note` that local post `post` shows; nil for a post made here.
    public func remotePostURI(of post: Int64) async throws -> (uri: String, url: String?)? {
        try await remotePostURIs(of: [post])[post]
    }

    /// Records how attempts at deliveries ended (``finishDeliveries(_:servers:)``), saying nothing of their servers.
    public func finishDeliveries(_ outcomes: [(id: Int64, outcome: DeliveryOutcome)]) async throws {
        try await finishDeliveries(outcomes, servers: [])
    }
}
