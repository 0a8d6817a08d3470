import Foundation
import Incremental
import MakestagramAPI

/// One post as screens show it, kept current: its counts, the viewer's like, the latest likers and the comments
/// are observable values (`I<…>`) that change when the viewer acts, when answers arrive and when live events
/// arrive. There is one model per post ID (``PostStore``), so a like shown in the home feed shows in a profile too.
///
/// What is shown is the server's state, ordered by the post's version (older states are dropped), with the
/// viewer's own like applied at once while it is on its way (optimistically).
@MainActor
public final class PostModel: Identifiable {
    public let id: Int64
    public let createdAt: Date
    /// Who posted it, with their current name and avatar.
    public var author: I<UserSummary> { authorInput.i }
    /// Every photo, in the author's order, each with its alt text (which its author may change: a cell bound to
    /// this shows the new words).
    public var photos: I<[PostImage]> { photosInput.i }
    /// The first photo as it is now: the cover a grid shows.
    public var image: PostImage { photosInput.value[0] }

    /// The caption, as its author last edited it.
    public var caption: I<String> { captionInput.i }
    /// When the author last edited the caption (screens show "edited"); nil if never.
    public var editedAt: I<Date?> { editedAtInput.i }
    /// How many likes the post has, including the viewer's like on its way; nil when its author hides the count
    /// from the viewer (show "Liked by alice and others").
    public var likeCount: I<Int?> { likeCountInput.i }
    /// Whether the author hides the like count from everyone else (the author still sees it).
    public var likeCountHidden: I<Bool> { likeCountHiddenInput.i }
    /// Whether the viewer likes the post (red heart).
    public var viewerHasLiked: I<Bool> { viewerHasLikedInput.i }
    /// The newest likers' usernames, for "Liked by alice, bob and 3 others".
    public var likers: I<[String]> { likersInput.i }
    /// "Liked by alice, bob and 3 others" ("Liked by alice and others" when the count is hidden), or "" when nobody
    /// likes the post.
    public let likedBy: I<String>
    /// How many comments the post has.
    public var commentCount: I<Int> { commentCountInput.i }
    /// The comments known, oldest first: the newest few at first, all of them after ``loadComments()``.
    public var comments: I<[Comment]> { commentsInput.i }
    /// Whether the viewer's like or unlike has not reached the server yet (in flight, or queued while offline).
    public var isLikePending: I<Bool> { isLikePendingInput.i }
    /// Whether the post was deleted; screens drop it.
    public var isDeleted: I<Bool> { isDeletedInput.i }

    private let authorInput: Input<UserSummary>
    private let photosInput: Input<[PostImage]>
    private let captionInput: Input<String>
    private let editedAtInput: Input<Date?>
    private let likeCountInput: Input<Int?>
    private let likeCountHiddenInput: Input<Bool>
    private let viewerHasLikedInput: Input<Bool>
    private let likersInput: Input<[String]>
    private let commentCountInput: Input<Int>
    private let commentsInput: Input<[Comment]>
    private let isLikePendingInput = Input(false)
    private let isDeletedInput = Input(false)

    /// The newest state the server confirmed.
    private(set) var server: Post
    /// The like state the viewer asked for that the server has not confirmed yet.
    var desiredLike: Bool?
    /// Whether a like request is on its way or queued.
    var likeInFlight = false
    /// Whether every comment is in ``comments`` (so new ones may be appended).
    private(set) var allCommentsLoaded = false
    unowned let store: PostStore

    init(_ post: Post, store: PostStore) {
        id = post.id
        createdAt = post.createdAt
        authorInput = Input(post.author)
        photosInput = Input(post.photos)
        server = post
        self.store = store
        captionInput = Input(post.caption)
        editedAtInput = Input(post.editedAt)
        likeCountInput = Input(post.likeCount)
        likeCountHiddenInput = Input(post.likeCountHidden)
        viewerHasLikedInput = Input(post.viewerHasLiked)
        likersInput = Input(post.likers)
        commentCountInput = Input(post.commentCount)
        commentsInput = Input(post.recentComments)
        allCommentsLoaded = post.commentCount <= post.recentComments.count
        likedBy = likeCountInput.i.zip(likersInput.i) { count, likers in Self.likedByText(count: count, likers: likers)
        }
        publish()
    }

    /// The post as it is shown now.
    public var post: Post {
        var post = server
        post.likeCount = likeCount.value
        post.viewerHasLiked = viewerHasLiked.value
        post.likers = likers.value
        post.commentCount = commentCount.value
        post.recentComments = Array(comments.value.suffix(Post.recentCommentsLimit))
        return post
    }

    /// The version of the newest state held.
    public var version: Int64 { server.version }

    // MARK: Actions

    /// Likes the post if the viewer does not, unlikes it otherwise. Shown at once; rolled back (and thrown) if the
    /// server refuses; queued while offline when the SDK keeps an offline cache.
    public func toggleLike() async throws {
        try await store.setLike(self, liked: !viewerHasLiked.value)
    }

    /// Likes the post (a double-tap never unlikes).
    public func like() async throws {
        guard !viewerHasLiked.value else { return }
        try await store.setLike(self, liked: true)
    }

    /// Takes the viewer's like back.
    public func unlike() async throws {
        guard viewerHasLiked.value else { return }
        try await store.setLike(self, liked: false)
    }

    /// Replaces the caption of the viewer's own post (the server refuses anyone else's with 403); the new caption
    /// shows when the server has it.
    public func editCaption(_ text: String) async throws {
        merge(try await store.client.editCaption(of: id, to: text))
    }

    /// Replaces the alt text (empty removes it) of the viewer's own post's photo at `photo` (0 is the first); the
    /// new words show when the server has them.
    public func editAltText(_ text: String, photo: Int = 0) async throws {
        merge(try await store.client.editAltText(of: id, photo: photo + 1, to: text))
    }

    /// Hides the like count of the viewer's own post from everyone else, or shows it again (403 for others' posts).
    public func setLikeCountHidden(_ hidden: Bool) async throws {
        merge(try await store.client.setLikeCountHidden(of: id, hidden))
    }

    /// Comments on the post; the comment shows in ``comments`` at once.
    @discardableResult
    public func addComment(_ text: String) async throws -> Comment {
        let comment = try await store.client.comment(on: id, text: text)
        // Unless its live event came first, count it now; the event (newer version) then sets the exact count.
        if !comments.value.contains(where: { $0.id == comment.id }) {
            server.commentCount += 1
            commentsInput.write(comments.value + [comment])
            publish()
        }
        return comment
    }

    /// Deletes a comment (the viewer's own, or any on the viewer's post).
    public func deleteComment(_ comment: Comment) async throws {
        try await store.client.deleteComment(comment.id)
        if comments.value.contains(where: { $0.id == comment.id }) {
            server.commentCount = max(0, server.commentCount - 1)
            commentsInput.write(comments.value.filter { $0.id != comment.id })
            publish()
        }
    }

    /// Loads every comment, oldest first, into ``comments``.
    public func loadComments() async throws {
        var all: [Comment] = []
        var cursor: String?
        repeat {
            let page = try await store.client.comments(on: id, cursor: cursor, limit: Limits.maxPageSize)
            all += page.items
            cursor = page.nextCursor
        } while cursor != nil
        // Comments that arrived live while loading are kept.
        let known = Set(all.map(\.id))
        let newer = comments.value.filter { !known.contains($0.id) && $0.id > (all.last?.id ?? 0) }
        allCommentsLoaded = true
        commentsInput.write(all + newer)
    }

    // MARK: Merging server states

    /// Takes a whole post from an answer or a snapshot, if it is newer than what is held.
    func merge(_ post: Post) {
        guard post.version > server.version else { return }
        server = post
        let known = Set(comments.value.map(\.id))
        let merged = comments.value + post.recentComments.filter { !known.contains($0.id) }
        if allCommentsLoaded && merged.count == post.commentCount {
            commentsInput.write(merged)
        } else {
            // Something was deleted meanwhile, or only the newest few are known: show those.
            allCommentsLoaded = post.commentCount <= post.recentComments.count
            commentsInput.write(post.recentComments)
        }
        publish()
    }

    /// Takes a like state (an answer or a live event) if it is newer than what is held.
    func mergeLike(likeCount: Int?, viewerHasLiked: Bool, likers: [String], version: Int64) {
        guard version > server.version else {
            // An answer about the viewer's own like is the truth about it, whatever came in between.
            if version == server.version { server.viewerHasLiked = viewerHasLiked }
            publish()
            return
        }
        server.likeCount = likeCount
        server.viewerHasLiked = viewerHasLiked
        server.likers = likers
        server.version = version
        publish()
    }

    /// Takes a user's new name or avatar wherever the post shows them: as its author, as a commenter. (Not a change
    /// to the post: its version stays.)
    func mergeUser(_ user: UserSummary) {
        if server.author.id == user.id { server.author = user }
        for index in server.recentComments.indices where server.recentComments[index].author.id == user.id {
            server.recentComments[index].author = user
        }
        let comments = comments.value.map { comment in
            var comment = comment
            if comment.author.id == user.id { comment.author = user }
            return comment
        }
        Graph.main.batch {
            if comments != self.comments.value { commentsInput.write(comments) }
            publish()
        }
    }

    /// Stops showing a removed user's comments (their account was suspended or deleted). Not a change to the post:
    /// the deletions that follow, if any, bring the count.
    func dropComments(by user: Int64) {
        server.recentComments.removeAll { $0.author.id == user }
        let comments = comments.value.filter { $0.author.id != user }
        Graph.main.batch {
            if comments != self.comments.value { commentsInput.write(comments) }
            publish()
        }
    }

    /// Takes a live change of the count's visibility if it is newer than what is held.
    func mergeLikeCountVisibility(hidden: Bool, likeCount: Int?, version: Int64) {
        guard version > server.version else { return }
        server.version = version
        server.likeCountHidden = hidden
        server.likeCount = likeCount
        publish()
    }

    /// Takes a live caption edit if it is newer than what is held.
    func mergeCaption(_ caption: String, editedAt: Date, version: Int64) {
        guard version > server.version else { return }
        server.version = version
        server.caption = caption
        server.editedAt = editedAt
        publish()
    }

    /// Takes a live comment event if it is newer than what is held.
    func mergeComment(created comment: Comment?, deleted commentID: Int64?, commentCount: Int, version: Int64) {
        guard version > server.version else { return }
        server.version = version
        server.commentCount = commentCount
        var list = comments.value
        if let comment, !list.contains(where: { $0.id == comment.id }) { list.append(comment) }
        if let commentID { list.removeAll { $0.id == commentID } }
        Graph.main.batch {
            commentsInput.write(list)
            publish()
        }
    }

    func markDeleted() {
        isDeletedInput.write(true)
    }

    /// Shows the server's state with the viewer's unconfirmed like applied.
    func publish() {
        let liked = desiredLike ?? server.viewerHasLiked
        let count = server.likeCount.map { max(0, $0 + (liked ? 1 : 0) - (server.viewerHasLiked ? 1 : 0)) }
        var likers = server.likers
        if let me = store.viewer?.username {
            if liked && !likers.contains(me) { likers = Array(([me] + likers).prefix(Post.likersPreviewLimit)) }
            if !liked { likers.removeAll { $0 == me } }
        }
        Graph.main.batch {
            authorInput.write(server.author)
            photosInput.write(server.photos)
            captionInput.write(server.caption)
            editedAtInput.write(server.editedAt)
            likeCountInput.write(count)
            likeCountHiddenInput.write(server.likeCountHidden)
            viewerHasLikedInput.write(liked)
            likersInput.write(likers)
            commentCountInput.write(server.commentCount)
            isLikePendingInput.write(likeInFlight || desiredLike != nil)
        }
    }

    /// "Liked by alice, bob and 3 others"; "Liked by alice and others" without a count (hidden by the author).
    nonisolated static func likedByText(count: Int?, likers: [String]) -> String {
        guard let count else { return likers.first.map { "Liked by \($0) and others" } ?? "" }
        guard count > 0 else { return "" }
        let names = Array(likers.prefix(count))
        let others = count - names.count
        switch (names.count, others) {
        case (0, _): return others == 1 ? "1 like" : "\(others) likes"
        case (1, 0): return "Liked by \(names[0])"
        case (_, 0): return "Liked by \(names.dropLast().joined(separator: ", ")) and \(names.last!)"
        default: return "Liked by \(names.joined(separator: ", ")) and \(others) other\(others == 1 ? "" : "s")"
        }
    }
}
