import MakestagramStore
import Synchronization

/// The committed changes that concern one user, as they happen, for a stream that is not one of the live engine's
/// own sockets (the Mastodon streaming API): the hub hands each tap what may concern its user, without waiting. A tap
/// holds at most ``capacity`` events; one that falls further behind, or whose session ends, is finished.
public final class EventTap: Sendable {
    public let user: Int64
    public let tokenHash: [UInt8]
    /// The events, until the tap is finished.
    public let events: AsyncStream<StoreEvent>
    private let continuation: AsyncStream<StoreEvent>.Continuation
    private let held = Atomic<Int>(0)
    public static let capacity = 1_000

    init(user: Int64, tokenHash: [UInt8]) {
        self.user = user
        self.tokenHash = tokenHash
        (events, continuation) = AsyncStream.makeStream(of: StoreEvent.self, bufferingPolicy: .unbounded)
    }

    /// Called by the reader for each event it took, so that the tap knows how far behind it is.
    public func consumed() {
        held.subtract(1, ordering: .relaxed)
    }

    func deliver(_ event: StoreEvent) {
        if held.add(1, ordering: .relaxed).newValue > Self.capacity {
            continuation.finish()
        } else {
            continuation.yield(event)
        }
    }

    func finish() {
        continuation.finish()
    }

    /// Whether `event` may concern the tap's user: a post entering or leaving their timeline, a like or follow of
    /// theirs by someone else, any comment or caption edit (the reader checks whose post it was), a change of their
    /// activity (a mention), or the end of the session, the account or the stream.
    func mayConcern(_ event: StoreEvent) -> Bool {
        switch event {
        case .postCreated(_, let audience), .postDeleted(_, _, let audience): audience.contains(user)
        case .likeChanged(let change): change.liked && change.authorID == user && change.actor.id != user
        case .followChanged(let follower, let followee, let following):
            following && followee == user && follower != user
        case .commentCreated, .captionEdited, .imageChanged: true
        // A change of their activity may be a mention of them.
        case .activityChanged(let recipient, _): recipient == user
        case .sessionEnded, .userRemoved, .changesMissed: false
        case .commentDeleted, .likeCountHiddenChanged, .profileChanged, .userRestored, .muteChanged,
            .blockChanged, .followRequestChanged, .privacyChanged, .domainBlockChanged, .reportForwarded:
            false
        }
    }
}
