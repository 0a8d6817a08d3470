import Foundation
import MakestagramAPI
import MakestagramStore
import NIOCore

/// A store event about a post, encoded once for all of its recipients.
struct LiveDelivery: Sendable {
    enum Payload: Sendable {
        /// A like state; which frame a recipient gets depends on whether the recipient has liked the post, and, when
        /// the post's author hides its like count, on whether the recipient is the author (`author`'s frames carry
        /// the count, the others do not).
        case like(
            actorID: Int64, liked: Bool, whenViewerLiked: ByteBuffer, whenViewerDidNot: ByteBuffer, author: Frames?)
        /// The same frame for everyone.
        case frame(ByteBuffer)
        /// One frame for the post's author, another for everyone else.
        case byAuthor(author: Int64, forAuthor: ByteBuffer, forOthers: ByteBuffer)
    }

    /// A like's frames for the author of a post whose count is hidden from others.
    struct Frames: Sendable {
        let author: Int64
        let whenViewerLiked: ByteBuffer
        let whenViewerDidNot: ByteBuffer
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
        func frame(viewerHasLiked: Bool, count: Bool) -> ByteBuffer {
            let like = LiveLike(
                postId: change.postID, version: change.version, actor: change.actor,
                likeCount: count ? change.likeCount : nil, likers: change.likers, viewerHasLiked: viewerHasLiked)
            return Self.encode(change.liked ? .liked(like) : .unliked(like))
        }
        self.postID = change.postID
        self.version = change.version
        let author =
            change.countHidden
            ? Frames(
                author: change.authorID, whenViewerLiked: frame(viewerHasLiked: true, count: true),
                whenViewerDidNot: frame(viewerHasLiked: false, count: true)) : nil
        self.payload = .like(
            actorID: change.actor.id, liked: change.liked,
            whenViewerLiked: frame(viewerHasLiked: true, count: !change.countHidden),
            whenViewerDidNot: frame(viewerHasLiked: false, count: !change.countHidden), author: author)
    }

    /// An event whose message differs for the post's author.
    init(postID: Int64, version: Int64, author: Int64, forAuthor: LiveServerMessage, forOthers: LiveServerMessage) {
        self.postID = postID
        self.version = version
        self.payload = .byAuthor(author: author, forAuthor: Self.encode(forAuthor), forOthers: Self.encode(forOthers))
    }

    /// Any other post event.
    init(postID: Int64, version: Int64, message: LiveServerMessage) {
        self.postID = postID
        self.version = version
        self.payload = .frame(Self.encode(message))
    }
}
