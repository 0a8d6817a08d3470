import Foundation

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

    public init(
        userID: Int64, username: String, uri: String, inbox: String, sharedInbox: String?, keyID: String,
        publicKeyPEM: String, profileURL: String?
    ) {
        self.userID = userID
        self.username = username
        self.uri = uri
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.profileURL = profileURL
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

    public init(
        uri: String, username: String, displayName: String, bio: String, inbox: String, sharedInbox: String?,
        keyID: String, publicKeyPEM: String, profileURL: String?, isPrivate: Bool
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

/// Federation: the keys local actors sign with, the people of other servers this one knows, and the activities they
/// sent. Part of ``Store``; both stores implement it.
public protocol FederationStoring: Sendable {
    /// The private key (DER) `user` signs with, or the instance actor's when `user` is nil; nil when none was made
    /// yet.
    func actorKey(user: Int64?) async throws -> Data?
    /// Keeps `key` as the private key of `user` (the instance actor's when nil) unless one is kept already, and
    /// answers the one kept: two instances making a key at once agree on one.
    func saveActorKey(user: Int64?, key: Data) async throws -> Data

    /// Keeps what `document` says of a remote person (their row among the users is made the first time, and their
    /// name, bio, key and inboxes follow later documents) and answers them.
    func saveRemoteActor(_ document: RemoteActorDocument) async throws -> RemoteActor
    /// The remote person whose ActivityPub id is `uri`.
    func remoteActor(uri: String) async throws -> RemoteActor?
    /// The remote person whose row among the users is `user`; nil for a local one.
    func remoteActor(user: Int64) async throws -> RemoteActor?
    /// The inboxes that reach every remote follower of `user`, each once (shared inboxes where servers have them).
    func remoteFollowerInboxes(of user: Int64) async throws -> [String]

    /// How many active local people there are, and how many posts they have (NodeInfo's usage).
    func localUsage() async throws -> (users: Int, posts: Int)

    /// Remembers `activity`; false when its id was remembered already (it was applied before).
    func rememberInbound(_ activity: InboundActivity) async throws -> Bool
    /// The remembered activity whose id is `id`.
    func inbound(id: String) async throws -> InboundActivity?
    /// Forgets the remembered activity `id` (it was taken back).
    func forgetInbound(id: String) async throws
}
