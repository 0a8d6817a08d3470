import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// Likes, comments and reports on posts.
struct InteractionsController<S: Store>: Sendable {
    let store: S

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
        return try await store.setLike(postID: try context.id("id", of: "post"), viewer: user.id, liked: liked).written
    }

    @Sendable func likers(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "likes")
        guard let result = try await store.likers(postID: try context.id("id", of: "post"), page: page) else {
            throw APIError.notFound("post")
        }
        return result.forwardPage("likes")
    }

    @Sendable func comment(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Comment> {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        let input = try await request.decodeJSON(NewCommentRequest.self)
        let text = input.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Limits.commentLength.contains(text.unicodeScalars.count) else {
            throw APIError.invalidField(field: "text", reason: "write 1 to 2,200 characters")
        }
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
        let reason = input.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Limits.reportReasonLength.contains(reason.unicodeScalars.count) else {
            throw APIError.invalidField(field: "reason", reason: "write 1 to 500 characters")
        }
        try await store.report(postID: postID, reporter: user.id, reason: reason)
        return .created
    }
}
