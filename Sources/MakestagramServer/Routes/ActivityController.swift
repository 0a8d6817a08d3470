import Foundation
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// The logged-in user's activity: what others did to them, the unread count, and marking it as read.
struct ActivityController<S: Store>: Sendable {
    let core: Core<S>

    var store: S { core.store }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("activity", use: list)
        routes.get("activity/unread", use: unread)
        routes.post("activity/read", use: markRead)
        return routes
    }

    /// One page of groups, the newest first.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Page<ActivityGroup> {
        let user = try context.requireUser()
        let page = try request.pageRequest(list: "activity")
        // Only forward pages: the unread count and live `activity.changed` tell a screen when to load the top again.
        if case .newerThan = page.position { throw APIError.invalidCursor }
        return try await store.activity(userID: user.id, page: page).forwardPage("activity")
    }

    @Sendable func unread(_ request: Request, context: AppRequestContext) async throws -> ActivityUnread {
        let user = try context.requireUser()
        return ActivityUnread(unreadCount: try await store.unreadActivityCount(userID: user.id))
    }

    /// Marks the actions up to `through` (the newest group shown), or all, as read.
    @Sendable func markRead(_ request: Request, context: AppRequestContext) async throws -> ActivityUnread {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(MarkActivityRead.self)
        let unread = try await core.accounts.markActivityRead(userID: user.id, through: input.through)
        return ActivityUnread(unreadCount: unread)
    }
}
