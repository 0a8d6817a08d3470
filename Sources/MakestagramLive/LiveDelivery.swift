import Foundation
import MakestagramAPI
import MakestagramStore
import NIOCore

/// A store event about a post, encoded once for all of its recipients.
struct LiveDelivery: Sendable {
    enum Payload: Sendable {
        /// A like state; which frame a recipient gets depends on whether the recipient has liked the post.
        case like(actorID: Int64, liked: Bool, whenViewerLiked: ByteBuffer, whenViewerDidNot: ByteBuffer)
        /// The same frame for everyone.
        case frame(ByteBuffer)
    }

    let postID: Int64
    let version: Int64
    let payload: Payload

    /// The wire frame of a message (see ``WireFrame``).
    static func encode(_ message: LiveServerMessage) -> ByteBuffer {
        // Encoding our own value types cannot fail.
        WireFrame.text(ByteBuffer(bytes: (try? LiveDelivery.encoder.encode(message)) ?? Data()))
    }

    private static let encoder = JSONCoding.encoder()

    /// A like change, encoded both ways.
    init(_ change: LikeChange) {
        func frame(viewerHasLiked: Bool) -> ByteBuffer {
            let like = LiveLike(
                postId: change.postID, version: change.version, actor: change.actor, likeCount: change.likeCount,
                likers: change.likers, viewerHasLiked: viewerHasLiked)
            return Self.encode(change.liked ? .liked(like) : .unliked(like))
        }
        self.postID = change.postID
        self.version = change.version
        self.payload = .like(
            actorID: change.actor.id, liked: change.liked, whenViewerLiked: frame(viewerHasLiked: true),
            whenViewerDidNot: frame(viewerHasLiked: false))
    }

    /// Any other post event.
    init(postID: Int64, version: Int64, message: LiveServerMessage) {
        self.postID = postID
        self.version = version
        self.payload = .frame(Self.encode(message))
    }
}
