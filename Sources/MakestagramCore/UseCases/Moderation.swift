import Foundation
import MakestagramAPI
import MakestagramStore

/// What moderators do: handle reports, remove posts, suspend people and lift it. Each checks, on every call, that
/// the one acting is a moderator (a revoked moderator stops at once, on every instance), and each is logged.
package struct Moderation<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some ModerationStoring { core.store }

    /// The user, if they are a moderator; forbidden otherwise.
    package func moderator(_ user: UserSummary) async throws -> UserSummary {
        guard try await store.isModerator(userID: user.id) else {
            throw UseCaseError.forbidden("Only moderators can do that.")
        }
        return user
    }

    /// A moderator's reason: nil or empty is none.
    func reason(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { return "" }
        return try TextInput.multiline(raw, field: "reason", length: Limits.moderationReasonLength)
    }

    /// Marks a post's waiting reports as handled, leaving the post.
    package func dismissReports(postID: Int64, by user: UserSummary, reason: String?) async throws {
        let moderator = try await moderator(user)
        try await store.dismissReports(postID: postID, moderator: moderator.id, reason: try self.reason(reason))
    }

    /// Removes anyone's post, then its files.
    package func removePost(_ postID: Int64, by user: UserSummary, reason: String?) async throws {
        let moderator = try await moderator(user)
        let files = try await store.removePost(postID: postID, moderator: moderator.id, reason: try self.reason(reason))
        core.media.remove(files)
    }

    /// Suspends a user, or lifts their suspension.
    package func suspend(_ username: String, suspended: Bool, by user: UserSummary, reason: String?) async throws {
        let moderator = try await moderator(user)
        do {
            try await store.setSuspended(
                username: username, suspended: suspended, moderator: moderator.id, reason: try self.reason(reason))
        } catch StoreError.forbidden {
            throw UseCaseError.forbidden("Moderators cannot suspend themselves or another moderator.")
        }
    }

    /// Blocks another server and its subdomains for everyone here (`severity`), or lifts its block (nil), and
    /// answers the blocks now standing. A suspension removes what its people made here (their posts, likes,
    /// comments and follows, as when their server deletes their accounts) and federation refuses the server from
    /// then on; a limit shows their posts only to those who follow them. Lifting a limit reads their documents again
    /// (what they say of themselves stands again); lifting a suspension lets them be found again. Repeating a block
    /// removes again what arrived while it was made.
    package func blockDomain(
        _ raw: String, severity: DomainBlockSeverity?, by user: UserSummary, reason: String?
    ) async throws -> [DomainBlock] {
        let moderator = try await moderator(user)
        let domain = try TextInput.domain(raw)
        _ = try await store.setDomainBlock(
            domain: domain, severity: severity, moderator: moderator.id, reason: try self.reason(reason))
        let people = try await core.store.remoteUsers(onDomain: domain)
        switch store.domainSeverity(ofHost: domain) {
        case .suspend:
            for person in people { try await core.accounts.deleteRemoteAccount(user: person.id) }
        case .limit:
            for person in people { _ = try await core.store.setPrivate(userID: person.id, isPrivate: true) }
        case nil:
            await core.remote.refresh(people.map(\.username))
        }
        return try await store.domainBlocks()
    }

    /// Makes a user a moderator or not, as the server's operator (`makestagram admin`, on the server's machine:
    /// the first moderator cannot be made over the API). Logged as the operator's.
    package static func setModerator(_ username: String, moderator: Bool, on store: S) async throws {
        try await store.setModerator(username: username, moderator: moderator, by: nil)
    }
}
