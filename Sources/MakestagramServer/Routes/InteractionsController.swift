import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// Likes, comments and reports on posts, translated onto ``Interactions``.
struct InteractionsController<S: Store>: Sendable {
    let core: Core<S>

    var store: S { core.store }

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
        return try await core.interactions.like(postID: try context.id("id", of: "post"), by: user.id, liked: liked)
            .written
    }

    @Sendable func likers(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "likes")
        let viewer = try context.requireUser()
        guard
            let result = try await store.likers(
                postID: try context.id("id", of: "post"), viewer: viewer.id, page: page)
        else {
            throw APIError.notFound("post")
        }
        return try await store.markingFollows(result.forwardPage("likes"), viewer: viewer.id)
    }

    @Sendable func comment(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Comment> {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(NewCommentRequest.self)
        let comment = try await core.interactions.comment(on: postID, by: user.id, text: input.text)
        return EditedResponse(status: .created, response: comment)
    }

    @Sendable func comments(_ request: Request, context: AppRequestContext) async throws -> Page<Comment> {
        let page = try request.pageRequest(list: "comments")
        let viewer = try context.requireUser()
        guard
            let result = try await store.comments(
                postID: try context.id("id", of: "post"), viewer: viewer.id, page: page)
        else {
            throw APIError.notFound("post")
        }
        return result.forwardPage("comments")
    }

    @Sendable func deleteComment(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        try await core.interactions.deleteComment(try context.id("id", of: "comment"), by: user.id)
        return .noContent
    }

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(ReportRequest.self)
        try await core.interactions.report(
            postID: postID, by: user.id, reason: input.reason, forward: input.forward ?? false)
        return .created
    }
}
