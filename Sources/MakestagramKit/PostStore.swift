import Foundation
import Incremental
import MakestagramAPI

/// Holds one ``PostModel`` per post ID while anything shows it, merges answers and live events into the models by
/// version, and sends the viewer's likes: one request at a time per post, taps made meanwhile folded into the next,
/// queued on disk while offline (when there is an ``OfflineCache``) and sent when the server is back.
@MainActor
public final class PostStore {
    let client: APIClient
    /// Where feeds, images and offline likes are kept for the logged-in user, if anywhere.
    private(set) var cache: OfflineCache?
    /// The logged-in user, whose own likes show in the likers at once.
    var viewer: UserSummary?

    private final class WeakModel {
        weak var model: PostModel?
        init(_ model: PostModel) { self.model = model }
    }

    private var models: [Int64: WeakModel] = [:]
    /// Told of each deleted post; a handler answering false is dropped (its owner is gone).
    private var deletionHandlers: [(Int64) -> Bool] = []
    /// Called when models are created, so that live updates can subscribe to them.
    var onNewModels: (() -> Void)?
    /// Likes and unlikes made offline, by post: the last wish counts (PUT and DELETE are idempotent, so sending one
    /// twice still counts once).
    private(set) var pendingLikes: [Int64: Bool]

    init(client: APIClient, cache: OfflineCache?) {
        self.client = client
        self.cache = cache
        self.pendingLikes = cache?.pendingLikes() ?? [:]
    }

    /// The model of `post`, created or updated with it (if it is newer).
    public func model(for post: Post) -> PostModel {
        if let model = models[post.id]?.model {
            model.merge(post)
            return model
        }
        let model = PostModel(post, store: self)
        if let wanted = pendingLikes[post.id] {
            model.desiredLike = wanted
            model.publish()
        }
        models[post.id] = WeakModel(model)
        pruneIfLarge()
        onNewModels?()
        return model
    }

    /// The models of `posts`, in order.
    public func models(for posts: [Post]) -> [PostModel] {
        posts.map(model(for:))
    }

    /// The model of a post some screen shows, if any.
    public func existing(_ id: Int64) -> PostModel? {
        models[id]?.model
    }

    /// The IDs of every post some screen shows.
    var liveIDs: [Int64] {
        models.compactMap { $0.value.model == nil ? nil : $0.key }
    }

    private func pruneIfLarge() {
        guard models.count > 256, models.count.isMultiple(of: 64) else { return }
        models = models.filter { $0.value.model != nil }
    }

    /// Calls `handler` with the ID of each post deleted from now on, while it answers true.
    func onDeletion(_ handler: @escaping (Int64) -> Bool) {
        deletionHandlers.append(handler)
    }

    /// The post is gone (deleted here, elsewhere, or found missing).
    func deleted(_ id: Int64) {
        existing(id)?.markDeleted()
        if pendingLikes.removeValue(forKey: id) != nil { cache?.savePendingLikes(pendingLikes) }
        deletionHandlers = deletionHandlers.filter { $0(id) }
    }

    /// Deletes one of the viewer's posts.
    public func delete(_ post: PostModel) async throws {
        try await client.deletePost(post.id)
        deleted(post.id)
    }

    // MARK: Live events

    /// Applies a message from the event stream; states not newer than the one held are dropped.
    public func apply(_ message: LiveServerMessage) {
        switch message {
        case .snapshot(let post):
            existing(post.id)?.merge(post)
        case .liked(let like), .unliked(let like):
            existing(like.postId)?.mergeLike(
                likeCount: like.likeCount, viewerHasLiked: like.viewerHasLiked, likers: like.likers,
                version: like.version)
        case .commentCreated(let event):
            existing(event.postId)?.mergeComment(
                created: event.comment, deleted: nil, commentCount: event.commentCount, version: event.version)
        case .commentDeleted(let event):
            existing(event.postId)?.mergeComment(
                created: nil, deleted: event.commentId, commentCount: event.commentCount, version: event.version)
        case .postEdited(let event):
            existing(event.postId)?.mergeCaption(event.caption, editedAt: event.editedAt, version: event.version)
        case .photoChanged(let event):
            // The message says only that it changed (its alt text, or its renditions): read it again.
            guard let model = existing(event.postId), model.server.version < event.version else { break }
            Task { [weak self, client] in
                guard let post = try? await client.post(event.postId) else { return }
                self?.existing(post.id)?.merge(post)
            }
        case .likeCountVisibility(let event):
            existing(event.postId)?.mergeLikeCountVisibility(
                hidden: event.likeCountHidden, likeCount: event.likeCount, version: event.version)
        case .postDeleted(let event):
            deleted(event.postId)
        case .userUpdated(let user):
            for entry in models.values { entry.model?.mergeUser(user) }
            if viewer?.id == user.id { viewer = user }
        case .userRemoved(let removed):
            for (id, entry) in models {
                guard let model = entry.model else { continue }
                if model.server.author.id == removed.userId {
                    deleted(id)
                } else {
                    model.dropComments(by: removed.userId)
                }
            }
        case .postCreated, .hello, .subscribed, .error, .activityChanged:
            break
        }
    }

    // MARK: Likes

    /// Shows the viewer's wish at once and sends it (unless a request for this post is already on its way: it
    /// then goes next). Rolls back and throws when the server refuses; keeps it queued when offline (with a cache).
    func setLike(_ model: PostModel, liked: Bool) async throws {
        model.desiredLike = liked
        if pendingLikes[model.id] != nil {
            pendingLikes[model.id] = liked
            cache?.savePendingLikes(pendingLikes)
        }
        model.publish()
        guard !model.likeInFlight else { return }
        model.likeInFlight = true
        defer {
            model.likeInFlight = false
            model.publish()
        }
        while let wanted = model.desiredLike, wanted != model.server.viewerHasLiked || pendingLikes[model.id] != nil {
            do {
                let state = try await wanted ? client.like(model.id) : client.unlike(model.id)
                model.mergeLike(
                    likeCount: state.likeCount, viewerHasLiked: state.viewerHasLiked, likers: state.likers,
                    version: state.version)
                forgetPending(model.id)
            } catch let error as MakestagramError where error.isOffline && cache != nil {
                pendingLikes[model.id] = wanted
                cache?.savePendingLikes(pendingLikes)
                return
            } catch {
                model.desiredLike = nil
                forgetPending(model.id)
                if (error as? MakestagramError)?.status == 404 { deleted(model.id) }
                throw error
            }
        }
        model.desiredLike = nil
    }

    private func forgetPending(_ id: Int64) {
        if pendingLikes.removeValue(forKey: id) != nil { cache?.savePendingLikes(pendingLikes) }
    }

    /// Sends the likes queued while offline. Stops at the first that still cannot get through.
    public func sendPendingLikes() async {
        for (id, liked) in pendingLikes.sorted(by: { $0.key < $1.key }) {
            do {
                let state = try await liked ? client.like(id) : client.unlike(id)
                forgetPending(id)
                if let model = existing(id) {
                    model.mergeLike(
                        likeCount: state.likeCount, viewerHasLiked: state.viewerHasLiked, likers: state.likers,
                        version: state.version)
                    if model.desiredLike == liked { model.desiredLike = nil }
                    model.publish()
                }
            } catch let error as MakestagramError where error.isOffline {
                return
            } catch {
                // Refused (the post is gone, say): the wish is dropped and the heart shows the truth.
                forgetPending(id)
                if let model = existing(id) {
                    model.desiredLike = nil
                    model.publish()
                }
                if (error as? MakestagramError)?.status == 404 { deleted(id) }
            }
        }
    }

    /// Starts over for another session: no model, feed or queued like of the previous one stays.
    func reset(cache: OfflineCache?, viewer: UserSummary?) {
        for entry in models.values { entry.model?.markDeleted() }
        models = [:]
        deletionHandlers = []
        self.cache = cache
        self.viewer = viewer
        pendingLikes = cache?.pendingLikes() ?? [:]
    }
}
