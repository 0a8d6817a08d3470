import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import Metrics

/// Posting photos, reading and deleting posts, and the home timeline; the writes translate onto ``Posting``.
struct PostsController<S: Store>: Sendable {
    let core: Core<S>
    /// Posts' JSON kept between pages.
    let rendered: RenderedPosts

    var store: S { core.store }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("posts", use: create)
        routes.post("uploads", use: upload)
        routes.delete("uploads/:id", use: deleteUpload)
        routes.get("posts/:id", use: show)
        routes.patch("posts/:id", use: edit)
        routes.delete("posts/:id", use: delete)
        routes.get("timeline", use: timeline)
        routes.get("tags/:tag/posts", use: tagged)
        return routes
    }

    /// A post: of one photo sent with it (multipart), or of photos uploaded first (JSON, ``NewPostRequest``).
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Post> {
        let user = try context.requireUser()
        if Request.isJSON(request.headers[.contentType]) {
            let input = try await request.decodeJSON(NewPostRequest.self, fields: ["caption", "uploads"])
            let post = try await core.posting.create(
                by: user.id, fromUploads: input.uploads, caption: input.caption ?? "")
            context.logger.info("post created", metadata: ["post": "\(post.id)", "photos": "\(post.photos.count)"])
            return EditedResponse(status: .created, response: post)
        }
        do {
            let post = try await core.posting.create(by: user.id) {
                let form = try await MultipartForm.read(request, limit: core.maxUploadBytes)
                return NewPhoto(
                    photo: Data(buffer: try form.photo("image")), caption: try form.text("caption"),
                    crop: try Self.crop(form.parts["crop"]), altText: try form.text("altText"))
            }
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "accepted")]).increment()
            context.logger.info("post created", metadata: ["post": "\(post.id)"])
            return EditedResponse(status: .created, response: post)
        } catch {
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "rejected")]).increment()
            throw error
        }
    }

    /// A photo for a post to come (multipart: `image`, and optionally `altText` and `crop`).
    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<UploadedPhoto>
    {
        let user = try context.requireUser()
        do {
            let upload = try await core.posting.upload(by: user.id) {
                let form = try await MultipartForm.read(request, limit: core.maxUploadBytes)
                return NewPhoto(
                    photo: Data(buffer: try form.photo("image")), caption: nil,
                    crop: try Self.crop(form.parts["crop"]), altText: try form.text("altText"))
            }
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "accepted")]).increment()
            return EditedResponse(status: .created, response: UploadedPhoto(id: upload.id, image: upload.photo.image))
        } catch {
            Counter(label: "makestagram_uploads_total", dimensions: [("result", "rejected")]).increment()
            throw error
        }
    }

    /// Forgets a photo uploaded and not posted (a composer cancelled).
    @Sendable func deleteUpload(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        try await core.posting.deleteUpload(id: try context.id("id", of: "upload"), by: user.id)
        return .noContent
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

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        guard let post = try await store.post(id: try context.id("id", of: "post"), viewer: user.id) else {
            throw APIError.notFound("post")
        }
        return post.written(for: user.id)
    }

    /// Changes one of the user's own posts: its caption, whether others see its like count, a photo's alt text.
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(
            EditPostRequest.self, fields: ["caption", "hideLikeCount", "altText", "photo"])
        let photo = input.photo ?? 1
        guard (1...Post.photoLimitCeiling).contains(photo) else {
            throw APIError.invalidField(field: "photo", reason: "counts the post's photos from 1")
        }
        let post = try await core.posting.edit(
            postID: try context.id("id", of: "post"), by: user.id, caption: input.caption,
            hideLikeCount: input.hideLikeCount, altText: input.altText, photo: photo - 1)
        return post.written(for: user.id)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        try await core.posting.delete(postID: try context.id("id", of: "post"), by: user.id)
        return .noContent
    }

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let user = try context.requireUser()
        // Taken before the read: JSON rendered from it is right for this epoch, perhaps not for a later one.
        let lookup = try await rendered.lookup(for: user.id, store: store)
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
