import MakestagramAPI
import MakestagramStore

extension Store {
    /// `users` as a list shows them to `viewer`: each with ``UserSummary/viewerFollows`` (absent on the viewer
    /// themself), for its Follow button. One query however long the list.
    func markingFollows(_ users: [UserSummary], viewer: Int64) async throws -> [UserSummary] {
        let followed = try await followed(by: viewer, among: users.map(\.id).filter { $0 != viewer })
        return users.map { user in
            var user = user
            user.viewerFollows = user.id == viewer ? nil : followed.contains(user.id)
            return user
        }
    }

    /// A page of users marked as ``markingFollows(_:viewer:)`` does.
    func markingFollows(_ page: Page<UserSummary>, viewer: Int64) async throws -> Page<UserSummary> {
        Page(items: try await markingFollows(page.items, viewer: viewer), nextCursor: page.nextCursor)
    }
}
