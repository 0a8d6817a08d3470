import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MakestagramAPI
import MakestagramStore
import Metrics

/// Posting photos, reading and deleting posts, and the home timeline.
struct PostsController<S: Store>: Sendable {
    let store: S
    let worker: PhotoWorker
    /// Posts' JSON kept between pages.
    let rendered: RenderedPosts
    let limits: ClientLimits
    /// The largest upload body, in bytes.
    let maxUploadBytes: Int

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("posts", use: create)
        routes.get("posts/:id", use: show)
        routes.patch("posts/:id", use: edit)
        routes.delete("posts/:id", use: delete)
        routes.get("timeline", use: timeline)
        routes.get("tags/:tag/posts", use: tagged)
        return routes
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Post> {
        let user = try context.requireUser()
        try limits.take(.posts, user: user.id)
        do {
            let form = try await MultipartForm.read(request, limit: maxUploadBytes)
            let caption = try Self.caption(form.parts["caption"])
            let image = try form.photo("image")
            let crop = try Self.crop(form.parts["crop"])
            let stored = try await worker.store(Data(buffer: image), crop: crop.processorCrop)
            let post: Post
            do {
                post = try await store.createPost(
                    NewPost(
                        authorID: user.id, caption: caption, width: stored.width, height: stored.height,
                        full: stored.full, thumb: stored.thumb, variants: stored.variants))
            } catch {
                worker.media.remove(stored.fileNames)
                throw error
            }
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "accepted")]).increment()
            context.logger.info("post created", metadata: ["post": "\(post.id)"])
            return EditedResponse(status: .created, response: post)
        } catch {
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "rejected")]).increment()
            throw error
        }
    }

    /// The crop field: how to cut the photo (``PhotoCrop``); absent means `original`.
    static func crop(_ part: MultipartForm.Part?) throws -> PhotoCrop {
        guard let part else { return .original }
        guard part.data.readableBytes <= 16, let crop = PhotoCrop(rawValue: String(buffer: part.data)) else {
            throw APIError.invalidField(
                field: "crop", reason: "use one of " + PhotoCrop.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return crop
    }

    /// The caption field: UTF-8 text of at most 2,200 characters; absent means empty.
    static func caption(_ part: MultipartForm.Part?) throws -> String {
        guard var data = part?.data else { return "" }
        guard data.readableBytes <= 4 * Limits.captionLength.upperBound,
            let text = try? data.readUTF8ValidatedString(length: data.readableBytes)
        else { throw APIError.invalidField(field: "caption", reason: "use at most 2,200 characters of UTF-8 text") }
        return try TextInput.multiline(text, field: "caption", length: Limits.captionLength)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        guard let post = try await store.post(id: try context.id("id", of: "post"), viewer: user.id) else {
            throw APIError.notFound("post")
        }
        return post.written(for: user.id)
    }

    /// Replaces the caption of one of the user's own posts.
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(EditPostRequest.self, fields: ["caption", "hideLikeCount"])
        let caption = try input.caption.map {
            try TextInput.multiline($0, field: "caption", length: Limits.captionLength)
        }
        guard caption != nil || input.hideLikeCount != nil else {
            // Only nulls (fields left as they are): nothing changes, but only the author may ask.
            guard let post = try await store.post(id: postID, viewer: user.id) else { throw APIError.notFound("post") }
            guard post.author.id == user.id else { throw APIError.forbidden("Only the author can do that.") }
            return post.written(for: user.id)
        }
        try limits.take(.edits, user: user.id)
        var post: Post?
        if let caption { post = try await store.editCaption(postID: postID, viewer: user.id, caption: caption) }
        if let hidden = input.hideLikeCount {
            post = try await store.setLikeCountHidden(postID: postID, viewer: user.id, hidden: hidden)
        }
        guard let post else { throw APIError.notFound("post") }
        return post.written(for: user.id)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let files = try await store.deletePost(id: try context.id("id", of: "post"), viewer: user.id)
        // After the row is gone; a crash before this line leaves files that the sweep after start-up removes.
        worker.media.remove(files)
        return .noContent
    }

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        // Taken before the read: JSON rendered from it is right for this epoch, perhaps not for a later one.
        let lookup = rendered.lookup(epoch: store.renderEpoch)
        let page = try await store.timeline(
            viewer: user.id, page: try request.pageRequest(list: "timeline"), known: lookup.known)
        return try await rendered.page(page, list: "timeline", viewer: user.id, lookup: lookup, store: store)
    }

    /// The posts filed under a #hashtag, newest first.
    @Sendable func tagged(_ request: Request, context: AppRequestContext) async throws -> Page<Post> {
        let user = try context.requireUser()
        let page = try request.pageRequest(list: "tag")
        // A tag no caption could carry (a space, a dash, too long) simply has no posts.
        guard let tag = context.parameters.get("tag")?.removingPercentEncoding, Hashtags.isValid(tag) else {
            return Page(items: [], nextCursor: nil)
        }
        let result = try await store.posts(tag: tag, viewer: user.id, page: page)
        return Page(items: result.items.map { $0.seen(by: user.id) }, nextCursor: result.nextCursor("tag"))
    }
}
