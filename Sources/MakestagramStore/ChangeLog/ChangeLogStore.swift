import Foundation
import MakestagramAPI

/// The change log as its durable consumers read it, and the writes by which the activity consumer keeps what it
/// derives.
///
/// Every write transaction appends its change (a ``ChangeRecord``) to the `changes` table in the same transaction,
/// on both stores. Consumers that only keep memory (caches, the live hub) hear each change as it commits; consumers
/// that write (activity now, deliveries to other servers later) read the log after commit, in order, from a position
/// kept in the database: each batch's effects and the new position are written in one transaction, so that after a
/// crash a consumer resumes where it stopped and applies nothing twice.
public protocol ChangeLogStore: Sendable {
    /// The next changes, at most `limit`, after where the durable consumer `consumer` stands, in log order (changes
    /// to one post or user in commit order), with the positions before and after them. Empty when it is up to date.
    /// The audience of a new or deleted post is its author alone (the log does not keep the followers).
    func changes(for consumer: String, limit: Int) async throws -> ChangeBatch
    /// Applies `writes` and moves `consumer` from `batch.from` to `batch.to`, in one transaction, then publishes
    /// the unread count of every user whose activity changed (``StoreEvent/activityChanged(user:unreadCount:)``):
    /// an open list reloads on it even when the count stayed (a read like withdrawn).
    /// False, and nothing written, when the consumer no longer stands at `batch.from` (another instance applied the
    /// batch first).
    func applyActivity(_ writes: [ActivityWrite], consumer: String, batch: ChangeBatch) async throws -> Bool
    /// The authors of the posts among `ids` that exist.
    func postAuthors(_ ids: [Int64]) async throws -> [Int64: Int64]
    /// The IDs of the active users among `usernames` (stored, lower-case form).
    func userIDs(usernames: Set<String>) async throws -> [String: Int64]
    /// What `user` did that notified others and still stands: their likes, comments, follows and posts (for a
    /// suspension lifted: their activity is derived again).
    func actions(of user: Int64) async throws -> UserActions
}

/// Changes read from the log for one consumer, with where it stood before them and where it will stand after.
public struct ChangeBatch: Sendable, Equatable {
    public var changes: [LoggedChange]
    /// How many entries of the log the batch covers (a record this version cannot read is skipped, but covered).
    public var read: Int
    /// The consumer's position before these changes, as the store writes it.
    public var from: String
    /// The position after them.
    public var to: String

    public init(changes: [LoggedChange], read: Int, from: String, to: String) {
        self.changes = changes
        self.read = read
        self.from = from
        self.to = to
    }
}

/// A change as the log holds it: what changed, and when it was logged.
public struct LoggedChange: Sendable, Equatable {
    public var event: StoreEvent
    public var at: Date

    public init(event: StoreEvent, at: Date) {
        self.event = event
        self.at = at
    }
}

/// One write of the activity consumer. Activity is identified by its source (``ActivityEntry/source``), so that it can
/// be added once and withdrawn when its cause goes, whatever happened in between.
public enum ActivityWrite: Sendable, Equatable {
    /// Adds an entry unless its source is there already, or its recipient is gone, is someone of another server,
    /// mutes the actor, or blocks them or is blocked by them.
    case add(ActivityEntry)
    /// Withdraws the entry of a source, if there is one.
    case remove(source: String)
    /// Withdraws every entry about a post (it was deleted).
    case removePost(Int64)
    /// Withdraws every entry about a comment (it was deleted): the comment itself and its mentions.
    case removeComment(Int64)
    /// Withdraws every entry caused by a user (their account was suspended or is being deleted), or only those
    /// addressed to `recipient` (who muted them).
    case removeActor(Int64, for: Int64? = nil)
    /// Withdraws the mentions of a post's caption but those of `sources` (its caption was edited).
    case keepPostMentions(post: Int64, sources: Set<String>)
}

extension ActivityWrite {
    /// The same writes in fewer statements, with the same result: each run of adds and removes by source becomes
    /// one removal of the sources that any of them removed and one insertion of the entries that stand at the end
    /// (a source's first add after its last remove; with no remove, its first add, which the table keeps only when
    /// the source is not there yet). Writes by post, comment or actor stay where they were, between runs. A batch of
    /// likes and unlikes is two statements however long it is.
    public static func coalesced(_ writes: [ActivityWrite]) -> [CoalescedActivityWrite] {
        var result: [CoalescedActivityWrite] = []
        var removed: [String] = []
        var removedSet: Set<String> = []
        var added: [String: ActivityEntry] = [:]
        var order: [String] = []
        func flush() {
            guard !removed.isEmpty || !order.isEmpty else { return }
            result.append(.bySource(remove: removed, add: order.compactMap { added[$0] }))
            removed = []
            removedSet = []
            added = [:]
            order = []
        }
        for write in writes {
            switch write {
            case .add(let entry):
                if added[entry.source] == nil {
                    added[entry.source] = entry
                    order.append(entry.source)
                }
            case .remove(let source):
                if removedSet.insert(source).inserted { removed.append(source) }
                if added.removeValue(forKey: source) != nil { order.removeAll { $0 == source } }
            case .removePost, .removeComment, .removeActor, .keepPostMentions:
                flush()
                result.append(.other(write))
            }
        }
        flush()
        return result
    }
}

/// A step of ``ActivityWrite/coalesced(_:)``.
public enum CoalescedActivityWrite: Sendable, Equatable {
    /// Withdraws the entries of `remove`, then adds each of `add` unless its source is there (sources distinct).
    case bySource(remove: [String], add: [ActivityEntry])
    /// A write by post, comment or actor, as it was.
    case other(ActivityWrite)
}

/// Something someone did to a user, as the activity list shows it.
public struct ActivityEntry: Sendable, Equatable {
    public var recipient: Int64
    public var actor: Int64
    public var kind: ActivityGroup.Kind
    public var post: Int64?
    public var comment: Int64?
    /// What caused it, unique: `like:POST:ACTOR`, `comment:ID`, `follow:ACTOR:RECIPIENT`,
    /// `mention:post:POST:RECIPIENT`, `mention:comment:ID:RECIPIENT`.
    public var source: String
    /// The group it is shown in (``ActivityGroup``).
    public var group: String
    public var createdAt: Date
    public var unread: Bool

    public init(
        recipient: Int64, actor: Int64, kind: ActivityGroup.Kind, post: Int64? = nil, comment: Int64? = nil,
        source: String, group: String, createdAt: Date, unread: Bool = true
    ) {
        self.recipient = recipient
        self.actor = actor
        self.kind = kind
        self.post = post
        self.comment = comment
        self.source = source
        self.group = group
        self.createdAt = createdAt
        self.unread = unread
    }
}

/// What one user did that notifies others, as it stands now.
public struct UserActions: Sendable, Equatable {
    public struct Like: Sendable, Equatable {
        public var post: Int64
        public var author: Int64
        public var at: Date

        public init(post: Int64, author: Int64, at: Date) {
            self.post = post
            self.author = author
            self.at = at
        }
    }

    public struct Follow: Sendable, Equatable {
        public var followee: Int64
        public var at: Date

        public init(followee: Int64, at: Date) {
            self.followee = followee
            self.at = at
        }
    }

    /// Their likes, with each post's author.
    public var likes: [Like]
    /// Their comments, with each post's author.
    public var comments: [(comment: Comment, postAuthor: Int64)]
    public var follows: [Follow]
    /// Their posts (their captions may mention people).
    public var posts: [(id: Int64, caption: String, at: Date)]

    public init(
        likes: [Like], comments: [(comment: Comment, postAuthor: Int64)], follows: [Follow],
        posts: [(id: Int64, caption: String, at: Date)]
    ) {
        self.likes = likes
        self.comments = comments
        self.follows = follows
        self.posts = posts
    }

    public static func == (lhs: UserActions, rhs: UserActions) -> Bool {
        lhs.likes == rhs.likes && lhs.follows == rhs.follows
            && lhs.comments.map(\.comment) == rhs.comments.map(\.comment)
            && lhs.comments.map(\.postAuthor) == rhs.comments.map(\.postAuthor)
            && lhs.posts.map(\.id) == rhs.posts.map(\.id)
    }
}
