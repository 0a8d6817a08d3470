/// Why a store operation did not happen.
public enum StoreError: Error, Sendable, Equatable {
    /// The username is taken (letter case does not matter).
    case usernameTaken
    /// There is no such user, post or comment; the associated value names which.
    case notFound(String)
    /// The viewer may not change this item.
    case forbidden
    /// A user cannot follow themselves.
    case cannotFollowSelf
    /// A user cannot mute themselves.
    case cannotMuteSelf
    /// A user cannot block themselves.
    case cannotBlockSelf
    /// The viewer blocks the user they tried to follow: they must unblock first.
    case youBlockThem
    /// A user cannot report their own post.
    case cannotReportOwnPost
    /// The user already reported this post.
    case alreadyReported
    /// The database failed; the associated value describes how. No change was made.
    case database(String)
    /// The database cannot be reached now (a server shared over the network is down or restarting); the associated
    /// value describes how. No change was made; the same request may succeed shortly.
    case unavailable(String)
}
