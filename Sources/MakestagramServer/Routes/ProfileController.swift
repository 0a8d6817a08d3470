import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// The logged-in user's own profile: display name, bio and avatar, translated onto ``Profiles``.
struct ProfileController<S: Store>: Sendable {
    let core: Core<S>

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.patch("me", use: edit)
        routes.put("me/avatar", use: setAvatar)
        routes.delete("me/avatar", use: removeAvatar)
        return routes
    }

    /// Changes the display name, bio, like-count default and privacy (the fields sent).
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        return try await core.profiles.edit(user.id) {
            let input = try await request.decodeJSON(EditProfileRequest.self)
            return ProfileChanges(
                displayName: input.displayName, bio: input.bio, hideLikeCounts: input.hideLikeCounts,
                isPrivate: input.isPrivate)
        }
    }

    /// Takes a photo (multipart field `image`) through the photo pipeline as the new avatar.
    @Sendable func setAvatar(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        return try await core.profiles.edit(user.id) {
            let form = try await MultipartForm.read(request, limit: core.maxUploadBytes)
            return ProfileChanges(avatar: .photo(Data(buffer: try form.photo("image"))))
        }
    }

    /// Goes back to initials.
    @Sendable func removeAvatar(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        return try await core.profiles.edit(user.id) { ProfileChanges(avatar: .initials) }
    }
}
