import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// The logged-in user's own profile: display name, bio and avatar.
struct ProfileController<S: Store>: Sendable {
    let store: S
    let worker: PhotoWorker
    let limits: ClientLimits
    /// The largest upload body, in bytes.
    let maxUploadBytes: Int

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.patch("me", use: edit)
        routes.put("me/avatar", use: setAvatar)
        routes.delete("me/avatar", use: removeAvatar)
        return routes
    }

    /// Changes the display name and bio (the fields sent).
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(EditProfileRequest.self)
        let name = try input.displayName.map(TextInput.displayName)
        let bio = try input.bio.map { try TextInput.multiline($0, field: "bio", length: Limits.bioLength) }
        try limits.take(.edits, user: user.id)
        // Only the writes asked for: switching the like-count default alone does not rewrite the name and bio.
        if let hidden = input.hideLikeCounts {
            if name != nil || bio != nil {
                _ = try await store.updateProfile(userID: user.id, displayName: name, bio: bio)
            }
            return try await store.setHidesLikeCounts(userID: user.id, hidden: hidden)
        }
        return try await store.updateProfile(userID: user.id, displayName: name, bio: bio)
    }

    /// Takes a photo (multipart field `image`) through the photo pipeline as the new avatar.
    @Sendable func setAvatar(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        try limits.take(.edits, user: user.id)
        let form = try await MultipartForm.read(request, limit: maxUploadBytes)
        let image = try form.photo("image")
        let files = try await worker.storeAvatar(Data(buffer: image))
        do {
            return try await replaceAvatar(user.id, files)
        } catch {
            worker.media.remove([files.small, files.large])
            throw error
        }
    }

    /// Goes back to initials.
    @Sendable func removeAvatar(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        try limits.take(.edits, user: user.id)
        return try await replaceAvatar(user.id, nil)
    }

    private func replaceAvatar(_ userID: Int64, _ files: AvatarFiles?) async throws -> UserProfile {
        let (profile, replaced) = try await store.setAvatar(userID: userID, files: files)
        // After the change commits; a crash before this line leaves files that the sweep after start-up removes.
        worker.media.remove(replaced)
        return profile
    }
}
