import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// Likes, comments and reports on posts.
struct InteractionsController<S: Store>: Sendable {
    let store: S
    let limits: ClientLimits

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.put("posts/:id/like") { try await like($0, $1, liked: true) }
        routes.delete("posts/:id/like") { try await like($0, $1, liked: false) }
        routes.get("posts/:id/likes", use: likers)
        routes.post("posts/:id/comments", use: comment)
        routes.get("posts/:id/comments", use: comments)
        routes.delete("comments/:id", use: deleteComment)
        routes.post("posts/:id/reports", use: report)
        return routes
    }

    func like(_ request: Request, _ context: AppRequestContext, liked: Bool) async throws -> WrittenJSON {
        let user = try context.requireUser()
        try limits.take(.likes, user: user.id)
        return try await store.setLike(postID: try context.id("id", of: "post"), viewer: user.id, liked: liked).written
    }

    @Sendable func likers(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "likes")
        let viewer = try context.requireUser()
        guard let result = try await store.likers(postID: try context.id("id", of: "post"), page: page) else {
            throw APIError.notFound("post")
        }
        return try await store.markingFollows(result.forwardPage("likes"), viewer: viewer.id)
    }

    @Sendable func comment(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Comment> {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(NewCommentRequest.self)
        let text = try TextInput.multiline(input.text, field: "text", length: Limits.commentLength)
        try limits.take(.comments, user: user.id)
        let comment = try await store.addComment(postID: postID, author: user.id, text: text)
        return EditedResponse(status: .created, response: comment)
    }

    @Sendable func comments(_ request: Request, context: AppRequestContext) async throws -> Page<Comment> {
        let page = try request.pageRequest(list: "comments")
        guard let result = try await store.comments(postID: try context.id("id", of: "post"), page: page) else {
            throw APIError.notFound("post")
        }
        return result.forwardPage("comments")
    }

    @Sendable func deleteComment(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        do {
            try await store.deleteComment(id: try context.id("id", of: "comment"), viewer: user.id)
        } catch StoreError.forbidden {
            throw APIError.forbidden("Only the comment's author or the post's author can delete it.")
        }
        return .noContent
    }

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(ReportRequest.self)
        let reason = try TextInput.multiline(input.reason, field: "reason", length: Limits.reportReasonLength)
        try limits.take(.reports, user: user.id)
        try await store.report(postID: postID, reporter: user.id, reason: reason)
        return .created
    }
}
