import HTTPTypes

/// The scope an app's token needs for each route, in one table: a route that is not here (changing the password,
/// sessions, exports, deleting the account, authorised apps, moderation) is for the first-party clients only, and
/// an app's token gets 403 there. First-party sessions carry no scopes and may use every route.
enum RouteScopes {
    /// Sentinel: any token of the user may use the route (logging its own token out).
    static let anyScope = "*"

    /// "METHOD /path/{capture}" → the scope needed.
    static let required: [String: String] = [
        "DELETE /api/v1/sessions/current": anyScope,
        "GET /api/v1/me": "read:accounts:self",
        "PATCH /api/v1/me": "write:accounts",
        "PUT /api/v1/me/avatar": "write:accounts",
        "DELETE /api/v1/me/avatar": "write:accounts",
        "GET /api/v1/me/suggestions": "read:accounts",
        "GET /api/v1/users": "read:search",
        "GET /api/v1/users/{username}": "read:accounts",
        "PUT /api/v1/users/{username}/follow": "write:follows",
        "DELETE /api/v1/users/{username}/follow": "write:follows",
        "PUT /api/v1/users/{username}/mute": "write:mutes",
        "DELETE /api/v1/users/{username}/mute": "write:mutes",
        "GET /api/v1/me/mutes": "read:mutes",
        "PUT /api/v1/users/{username}/block": "write:blocks",
        "DELETE /api/v1/users/{username}/block": "write:blocks",
        "GET /api/v1/me/blocks": "read:blocks",
        "GET /api/v1/me/follow-requests": "read:follows",
        "POST /api/v1/me/follow-requests/{username}/approve": "write:follows",
        "POST /api/v1/me/follow-requests/{username}/decline": "write:follows",
        "DELETE /api/v1/me/followers/{username}": "write:follows",
        "GET /api/v1/users/{username}/followers": "read:accounts",
        "GET /api/v1/users/{username}/following": "read:accounts",
        "GET /api/v1/users/{username}/posts": "read:statuses",
        "POST /api/v1/posts": "write:statuses",
        "POST /api/v1/uploads": "write:media",
        "DELETE /api/v1/uploads/{id}": "write:media",
        "GET /api/v1/posts/{id}": "read:statuses",
        "PATCH /api/v1/posts/{id}": "write:statuses",
        "DELETE /api/v1/posts/{id}": "write:statuses",
        "GET /api/v1/timeline": "read:statuses",
        "GET /api/v1/tags/{tag}/posts": "read:statuses",
        "PUT /api/v1/posts/{id}/like": "write:favourites",
        "DELETE /api/v1/posts/{id}/like": "write:favourites",
        "GET /api/v1/posts/{id}/likes": "read:accounts",
        "POST /api/v1/posts/{id}/comments": "write:statuses",
        "GET /api/v1/posts/{id}/comments": "read:statuses",
        "DELETE /api/v1/comments/{id}": "write:statuses",
        "POST /api/v1/posts/{id}/reports": "write:reports",
        "GET /api/v1/activity": "read:notifications",
        "GET /api/v1/activity/unread": "read:notifications",
        "POST /api/v1/activity/read": "write:notifications",
        "POST /api/v1/events/tickets": "read:statuses",
        // The Mastodon client API (MastodonController).
        "GET /api/v1/accounts/verify_credentials": "read:accounts:self",
        "PATCH /api/v1/accounts/update_credentials": "write:accounts",
        "GET /api/v1/accounts/relationships": "read:follows",
        "GET /api/v1/accounts/lookup": "read:accounts",
        "GET /api/v1/accounts/search": "read:accounts",
        "GET /api/v1/accounts/{id}": "read:accounts",
        "GET /api/v1/accounts/{id}/statuses": "read:statuses",
        "GET /api/v1/accounts/{id}/followers": "read:accounts",
        "GET /api/v1/accounts/{id}/following": "read:accounts",
        "POST /api/v1/accounts/{id}/follow": "write:follows",
        "POST /api/v1/accounts/{id}/unfollow": "write:follows",
        "POST /api/v1/accounts/{id}/remove_from_followers": "write:follows",
        "POST /api/v1/accounts/{id}/mute": "write:mutes",
        "POST /api/v1/accounts/{id}/unmute": "write:mutes",
        "GET /api/v1/mutes": "read:mutes",
        "POST /api/v1/accounts/{id}/block": "write:blocks",
        "POST /api/v1/accounts/{id}/unblock": "write:blocks",
        "GET /api/v1/blocks": "read:blocks",
        "GET /api/v1/follow_requests": "read:follows",
        "POST /api/v1/follow_requests/{id}/authorize": "write:follows",
        "POST /api/v1/follow_requests/{id}/reject": "write:follows",
        "GET /api/v1/timelines/home": "read:statuses",
        "GET /api/v1/timelines/public": "read:statuses",
        "POST /api/v1/statuses": "write:statuses",
        "GET /api/v1/statuses/{id}": "read:statuses",
        "PUT /api/v1/statuses/{id}": "write:statuses",
        "DELETE /api/v1/statuses/{id}": "write:statuses",
        "GET /api/v1/statuses/{id}/context": "read:statuses",
        "POST /api/v1/statuses/{id}/favourite": "write:favourites",
        "POST /api/v1/statuses/{id}/unfavourite": "write:favourites",
        "GET /api/v1/statuses/{id}/favourited_by": "read:accounts",
        "GET /api/v1/media/{id}": "write:media",
        "PUT /api/v1/media/{id}": "write:media",
        "DELETE /api/v1/media/{id}": "write:media",
        "GET /api/v1/notifications": "read:notifications",
        "GET /api/v1/streaming/user": stream,
        "GET /api/v1/streaming/health": anyScope,
        "POST /api/v2/media": "write:media",
        "GET /api/v2/search": "read:search",
    ]

    /// What the event stream needs: it carries posts, likes and comments.
    static let stream = "read:statuses"

    /// Nil when `scopes` may use the route `path` (as the router names it) with `method`; otherwise why not.
    static func refusal(method: HTTPRequest.Method, path: String?, scopes: Scopes) -> String? {
        let key = "\(method.rawValue == "HEAD" ? "GET" : method.rawValue) \(path ?? "")"
        guard let needed = required[key] else {
            return "Apps cannot use this route; it is for the Makestagram apps themselves."
        }
        if needed == anyScope || scopes.allows(needed) { return nil }
        return "This token was not granted the scope \(needed == "read:accounts:self" ? "read:accounts" : needed)."
    }
}
