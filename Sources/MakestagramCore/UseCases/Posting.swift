import Foundation
import MakestagramAPI
import MakestagramStore
import Photos

/// Posting photos: through the photo pipeline to files, then the row that refers to them, each step undone if a
/// later one fails; editing and deleting them. A photo processed is what the `posts` limit counts, once, however it
/// arrives (a post with its photo, or a photo uploaded ahead of its post).
package struct Posting<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some PostStoring { core.store }

    /// How long a photo uploaded ahead of its post is kept unposted.
    package static var uploadLifetime: TimeInterval { 86_400 }

    /// Posts a photo. The limit is taken before `read` is asked for the upload, so that a client over its share is
    /// refused before it sends the photo (an HTTP door answers `Expect: 100-continue` with the refusal).
    package func create(by user: Int64, read: () async throws -> NewPhoto) async throws -> Post {
        try core.protection.take(.posts, user: user)
        let input = try await read()
        let caption =
            try input.caption.map { try TextInput.multiline($0, field: "caption", length: Limits.captionLength) } ?? ""
        let altText = try Self.altText(input.altText)
        await core.meetMentioned(in: caption, by: user)
        let stored = try await core.worker.store(input.photo, crop: input.crop.processorCrop)
        do {
            return try await store.createPost(
                NewPost(
                    authorID: user, caption: caption, width: stored.width, height: stored.height, full: stored.full,
                    thumb: stored.thumb, variants: stored.variants, altText: altText))
        } catch {
            core.media.remove(stored.fileNames)
            throw error
        }
    }

    /// Keeps a photo ahead of the post that will show it (an album's photos, one request each, or Mastodon's media
    /// attachments); answers its ID and what was stored. Uploads left unposted for ``uploadLifetime`` are forgotten
    /// meanwhile, their files removed. The limit is taken before `read` is asked for the photo.
    package func upload(by user: Int64, read: () async throws -> NewPhoto) async throws -> (
        id: Int64, photo: StoredPhoto
    ) {
        try core.protection.take(.posts, user: user)
        let input = try await read()
        let altText = try Self.altText(input.altText)
        let stored = try await core.worker.store(input.photo, crop: input.crop.processorCrop)
        let photo = StoredPhoto(
            width: stored.width, height: stored.height, full: stored.full, thumb: stored.thumb,
            variants: stored.variants, altText: altText)
        let upload: (id: Int64, expired: [String])
        do {
            upload = try await store.createMediaUpload(
                photo, userID: user, expiringBefore: Date().addingTimeInterval(-Self.uploadLifetime))
        } catch {
            core.media.remove(stored.fileNames)
            throw error
        }
        core.media.remove(upload.expired)
        return (upload.id, photo)
    }

    /// Forgets a photo the user uploaded and has not posted (a composer cancelled), with its files.
    package func deleteUpload(id: Int64, by user: Int64) async throws {
        core.media.remove(try await store.deleteMediaUpload(id: id, userID: user))
    }

    /// Posts the photos the user uploaded ahead, in the order given, with `caption`: 1 to
    /// ``Core/maxPhotosPerPost``, each once. The photos were counted when they were uploaded. `field` names the list
    /// in what the door reads (`uploads`, `media_ids`).
    package func create(by user: Int64, fromUploads uploads: [Int64], caption raw: String, field: String = "uploads")
        async throws -> Post
    {
        let caption = try validated(uploads, caption: raw, field: field)
        await core.meetMentioned(in: caption, by: user)
        return try await store.createPost(fromUploads: uploads, userID: user, caption: caption)
    }

    /// Posts, as remote person `user`, the photos uploaded for them, as ``create(by:fromUploads:caption:field:)``
    /// does, together with where the post came from: nobody sees it without its origin. Nil, with nothing changed,
    /// when another post shows the same remote post already.
    package func create(by user: Int64, fromUploads uploads: [Int64], caption raw: String, origin: RemotePostOrigin)
        async throws -> Post?
    {
        let caption = try validated(uploads, caption: raw, field: "attachment")
        await core.meetMentioned(in: caption, by: user)
        return try await core.store.createRemotePost(
            fromUploads: uploads, userID: user, caption: caption, origin: origin)
    }

    /// The caption of a post of `uploads`, once they and it are acceptable.
    func validated(_ uploads: [Int64], caption raw: String, field: String) throws -> String {
        guard !uploads.isEmpty else {
            throw UseCaseError.invalidField(field: field, reason: "a post needs at least one photo")
        }
        guard uploads.count <= core.maxPhotosPerPost else {
            throw UseCaseError.invalidField(
                field: field, reason: "a post holds at most \(core.maxPhotosPerPost) photos")
        }
        guard Set(uploads).count == uploads.count else {
            throw UseCaseError.invalidField(field: field, reason: "each photo can be in a post once")
        }
        return try TextInput.multiline(raw, field: "caption", length: Limits.captionLength)
    }

    /// Changes what the author asked (nil leaves it): the caption, whether others see the like count, the alt text
    /// (empty: none) of the photo at index `photo` (0 is the first). Asking for nothing changes nothing and answers
    /// the post, but only to its author.
    package func edit(
        postID: Int64, by user: Int64, caption raw: String?, hideLikeCount: Bool?, altText rawAltText: String? = nil,
        photo: Int = 0
    ) async throws -> Post {
        let caption = try raw.map { try TextInput.multiline($0, field: "caption", length: Limits.captionLength) }
        let altText = try rawAltText.map { try Self.altText($0) }
        guard caption != nil || hideLikeCount != nil || altText != nil else {
            guard let post = try await store.post(id: postID, viewer: user) else {
                throw UseCaseError.notFound("post")
            }
            guard post.author.id == user else { throw UseCaseError.forbidden("Only the author can do that.") }
            return post
        }
        try core.protection.take(.edits, user: user)
        var post: Post?
        if let caption {
            await core.meetMentioned(in: caption, by: user)
            post = try await store.editCaption(postID: postID, viewer: user, caption: caption)
        }
        if let hideLikeCount {
            post = try await store.setLikeCountHidden(postID: postID, viewer: user, hidden: hideLikeCount)
        }
        if let altText {
            post = try await store.setAltText(postID: postID, viewer: user, photo: photo, altText: altText)
        }
        guard let post else { throw UseCaseError.notFound("post") }
        return post
    }

    /// Changes the alt text of a photo the user uploaded and has not posted yet (empty: none); answers the upload.
    package func setUploadAltText(id: Int64, by user: Int64, altText raw: String) async throws -> StoredPhoto {
        let altText = try Self.altText(raw)
        try core.protection.take(.edits, user: user)
        return try await store.setUploadAltText(id: id, userID: user, altText: altText)
    }

    /// An alt text as sent, checked as captions are (refused, never cut: at most ``Limits/altTextLength``); empty
    /// or only spaces is none.
    static func altText(_ raw: String?) throws -> String? {
        guard let raw else { return nil }
        let text = try TextInput.multiline(raw, field: "altText", length: Limits.altTextLength)
        return text.isEmpty ? nil : text
    }

    /// Deletes one of the user's posts, then its files.
    package func delete(postID: Int64, by user: Int64) async throws {
        let files = try await store.deletePost(id: postID, viewer: user)
        // After the row is gone; a crash before this line leaves files that the sweep after start-up removes.
        core.media.remove(files)
    }
}

/// What a door read for a new post: the photo's bytes, the caption (nil: none), how to cut the photo and its alt
/// text.
package struct NewPhoto: Sendable {
    package var photo: Data
    package var caption: String?
    package var crop: PhotoCrop
    /// What the photo shows, for those who cannot see it (nil: none).
    package var altText: String?

    package init(photo: Data, caption: String?, crop: PhotoCrop = .original, altText: String? = nil) {
        self.photo = photo
        self.caption = caption
        self.crop = crop
        self.altText = altText
    }
}

extension PhotoCrop {
    /// The crop as the photo pipeline takes it.
    package var processorCrop: PhotoProcessor.Crop { aspectRatio.map(PhotoProcessor.Crop.aspect) ?? .original }
}
