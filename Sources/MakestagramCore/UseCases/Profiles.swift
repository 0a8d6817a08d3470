import Foundation
import MakestagramAPI
import MakestagramStore

/// A person's own profile: display name, bio, avatar, whether their new posts hide their like counts, and whether
/// the account is private.
package struct Profiles<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some PeopleStoring { core.store }

    /// Makes the changes `read` answers, as one edit (one use of the `edits` limit, taken before `read` is asked, so
    /// that a client over its share is refused before it sends a photo). Only the writes asked for are made:
    /// switching the like-count default alone does not rewrite the name and bio. A new avatar goes through the photo
    /// pipeline; the files of the one it replaces go once the change commits, the new ones if it fails.
    package func edit(_ user: Int64, read: () async throws -> ProfileChanges) async throws -> UserProfile {
        try core.protection.take(.edits, user: user)
        let changes = try await read()
        let name = try changes.displayName.map(TextInput.displayName)
        let bio = try changes.bio.map {
            try TextInput.multiline($0, field: changes.bioField, length: Limits.bioLength)
        }
        var profile: UserProfile?
        if name == nil && bio == nil && changes.hideLikeCounts == nil && changes.avatar == nil
            && changes.isPrivate == nil
        {
            // Nothing asked: nothing written.
            profile = try await store.profile(id: user, viewer: user)
        }
        if name != nil || bio != nil {
            profile = try await store.updateProfile(userID: user, displayName: name, bio: bio)
        }
        if let hidden = changes.hideLikeCounts {
            profile = try await store.setHidesLikeCounts(userID: user, hidden: hidden)
        }
        if let avatar = changes.avatar {
            profile = try await setAvatar(user, avatar)
        }
        if let isPrivate = changes.isPrivate {
            profile = try await store.setPrivate(userID: user, isPrivate: isPrivate)
        }
        guard let profile else { throw UseCaseError.notFound("user") }
        return profile
    }

    private func setAvatar(_ user: Int64, _ avatar: ProfileChanges.Avatar) async throws -> UserProfile {
        var files: AvatarFiles?
        if case .photo(let data) = avatar { files = try await core.worker.storeAvatar(data) }
        do {
            let (profile, replaced) = try await store.setAvatar(userID: user, files: files)
            // After the change commits; a crash before this line leaves files that the sweep after start-up removes.
            core.media.remove(replaced)
            return profile
        } catch {
            if let files { core.media.remove([files.small, files.large]) }
            throw error
        }
    }
}

/// What a door read of a profile change; nil leaves a part as it is.
package struct ProfileChanges: Sendable {
    package var displayName: String?
    package var bio: String?
    /// The field the bio came in (`bio`, or Mastodon's `note`), for a refusal to name.
    package var bioField = "bio"
    package var hideLikeCounts: Bool?
    package var avatar: Avatar?
    /// Whether the account is to be private (Mastodon's `locked`).
    package var isPrivate: Bool?

    /// A new avatar's photo, or back to initials.
    package enum Avatar: Sendable {
        case photo(Data)
        case initials
    }

    package init(
        displayName: String? = nil, bio: String? = nil, bioField: String = "bio", hideLikeCounts: Bool? = nil,
        avatar: Avatar? = nil, isPrivate: Bool? = nil
    ) {
        self.isPrivate = isPrivate
        self.displayName = displayName
        self.bio = bio
        self.bioField = bioField
        self.hideLikeCounts = hideLikeCounts
        self.avatar = avatar
    }
}
