import Foundation
import MakestagramAPI

/// Each user's activity (what others did to them, derived from the change log) and its unread count. Part of ``Store``; both stores implement it.
public protocol ActivityStoring: Sendable {
    /// What others did to `userID` (liked or commented on their posts, followed them), grouped as
    /// ``ActivityGroup`` describes, the group with the newest action first. A group's key is its newest action's
    /// ID. The user's own actions are never there; an unlike, a deleted comment or post, an unfollow or a deleted
    /// user takes away what it caused.
    func activity(userID: Int64, page: PageRequest) async throws -> PageResult<ActivityGroup>
    /// How many of the user's actions are unread.
    func unreadActivityCount(userID: Int64) async throws -> Int
    /// Marks the user's actions up to the ID `through` (nil: all) as read, and answers how many stay unread. Every
    /// change of a user's unread count, this one or one caused by a like, comment or follow, publishes
    /// ``StoreEvent/activityChanged(user:unreadCount:)``.
    func markActivityRead(userID: Int64, through: Int64?) async throws -> Int
}
