import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import NIOCore
import Photos

/// Every error a client can get, each with its HTTP status and stable code. Mapped to problem details in one place.
enum APIError: Error, Sendable {
    /// The request body is not valid JSON or does not have the expected fields and types.
    case malformedBody(String)
    /// A field is present but its value is not allowed.
    case invalidField(field: String, reason: String)
    /// A query parameter is not allowed.
    case invalidParameter(name: String, reason: String)
    /// A pagination cursor was not one the server issued.
    case invalidCursor
    /// No bearer token, or one that does not belong to a live session.
    case unauthorized
    /// Username or password is wrong (the same answer for an unknown user, so usernames cannot be probed).
    case invalidCredentials
    /// The password was right but the moderators suspended the account.
    case accountSuspended
    /// Too many failed log-ins from this address (for this account, or for any); retry after the given seconds.
    case tooManyAttempts(retryAfter: Int)
    /// The client has used its share of an action (named in plural words); retry after the given seconds.
    case rateLimited(what: String, retryAfter: Int)
    /// The server is too busy for this request right now (too many log-ins being checked); retry shortly.
    case busy(retryAfter: Int)
    /// The client stopped sending the request before it was whole; nothing was changed. Nobody reads this answer.
    case clientAborted
    /// The path exists but not with this method; the associated value lists the methods it has.
    case methodNotAllowed(allow: [String])
    /// The username is taken.
    case usernameTaken
    /// There is no such user, post, comment or route.
    case notFound(String)
    /// The viewer may not change this item.
    case forbidden(String)
    /// The request conflicts with the current state (following yourself, reporting twice, …).
    case conflict(code: ProblemCode, detail: String)
    /// The request body is larger than the limit (in bytes, when known).
    case payloadTooLarge(limit: Int?)
    /// The upload is not JPEG, PNG, WebP or HEIC, or the body is not of the expected media type.
    case unsupportedMediaType(String)
    /// The image is broken, truncated or too large in pixels.
    case invalidImage(code: ProblemCode, detail: String)
    /// The HTTP method is not allowed, or another framework-level client error.
    case http(HTTPResponse.Status, String)
    /// Something failed on the server; the detail is deliberately generic.
    case internalError
    /// The database cannot be reached right now; nothing was changed, and the server recovers by itself.
    case databaseUnavailable

    var problem: Problem {
        switch self {
        case .malformedBody(let detail):
            Problem(status: 400, code: .malformedBody, title: "Malformed request body", detail: detail)
        case .invalidField(let field, let reason):
            Problem(status: 422, code: .invalidField, title: "Invalid field", detail: "\(field): \(reason)")
        case .invalidParameter(let name, let reason):
            Problem(status: 400, code: .invalidParameter, title: "Invalid parameter", detail: "\(name): \(reason)")
        case .invalidCursor:
            Problem(
                status: 400, code: .invalidCursor, title: "Invalid cursor",
                detail: "The cursor is not one this server issued; start again without a cursor.")
        case .unauthorized:
            Problem(
                status: 401, code: .unauthorized, title: "Authentication required",
                detail: "Send a valid token as 'Authorization: Bearer <token>'; log in to get one.")
        case .invalidCredentials:
            Problem(
                status: 401, code: .invalidCredentials, title: "Wrong username or password",
                detail: "The username or password is wrong.")
        case .tooManyAttempts(let seconds):
            Problem(
                status: 429, code: .tooManyAttempts, title: "Too many failed log-ins",
                detail: "Too many failed log-ins from this address; try again in \(seconds) seconds.")
        case .rateLimited(let what, let seconds):
            Problem(
                status: 429, code: .rateLimited, title: "Too many requests",
                detail: "Too many \(what) in a short time; try again in \(seconds) seconds.")
        case .busy(let seconds):
            Problem(
                status: 503, code: .serverBusy, title: "Server busy",
                detail: "The server is checking too many log-ins right now; try again in \(seconds) seconds.")
        case .clientAborted:
            Problem(
                status: 400, code: .clientAborted, title: "Request incomplete",
                detail: "The request body stopped before it was complete; nothing was changed.")
        case .methodNotAllowed(let allow):
            Problem(
                status: 405, code: .methodNotAllowed, title: "Method not allowed",
                detail: "This path answers \(allow.joined(separator: ", ")) only.")
        case .usernameTaken:
            Problem(
                status: 409, code: .usernameTaken, title: "Username taken",
                detail: "That username is taken; choose another.")
        case .accountSuspended:
            Problem(
                status: 403, code: .accountSuspended, title: "Account suspended",
                detail: "This account is suspended by the moderators: it cannot log in.")
        case .notFound(let what):
            Problem(status: 404, code: .notFound, title: "Not found", detail: "There is no such \(what).")
        case .forbidden(let detail):
            Problem(status: 403, code: .forbidden, title: "Forbidden", detail: detail)
        case .conflict(let code, let detail):
            Problem(status: 409, code: code, title: "Conflict", detail: detail)
        case .payloadTooLarge(let limit):
            Problem(
                status: 413, code: .payloadTooLarge, title: "Upload too large",
                detail: limit.map { "The request body is larger than the limit of \($0) bytes." }
                    ?? "The request body is larger than the server accepts.")
        case .unsupportedMediaType(let detail):
            Problem(status: 415, code: .unsupportedMediaType, title: "Unsupported media type", detail: detail)
        case .invalidImage(let code, let detail):
            Problem(status: 422, code: code, title: "Invalid image", detail: detail)
        case .http(let status, let detail):
            Problem(status: status.code, code: Self.code(of: status), title: status.reasonPhrase, detail: detail)
        case .databaseUnavailable:
            Problem(
                status: 503, code: .serviceUnavailable, title: "Service unavailable",
                detail: "The database cannot be reached right now; nothing was changed. Try again shortly.")
        case .internalError:
            Problem(
                status: 500, code: .internalError, title: "Internal server error",
                detail: "The server failed; nothing was changed. Try again later.")
        }
    }
}

extension APIError {
    /// The code of a problem the framework raised with only a status.
    static func code(of status: HTTPResponse.Status) -> ProblemCode {
        switch status.code {
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 405: .methodNotAllowed
        case 408: .requestTimeout
        case 413: .payloadTooLarge
        case 415: .unsupportedMediaType
        case 426: .upgradeRequired
        case 429: .rateLimited
        case 503: .serviceUnavailable
        case 500...: .internalError
        default: .badRequest
        }
    }
}

extension APIError: HTTPResponseError {
    var status: HTTPResponse.Status { .init(code: problem.status) }

    var headers: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/problem+json"]
        switch self {
        case .tooManyAttempts(let seconds), .rateLimited(_, let seconds), .busy(let seconds):
            fields[.retryAfter] = String(seconds)
        case .databaseUnavailable:
            fields[.retryAfter] = "2"
        case .methodNotAllowed(let allow):
            fields[.allow] = allow.joined(separator: ", ")
        default:
            break
        }
        if case .unauthorized = self { fields[.wwwAuthenticate] = "Bearer" }
        return fields
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var writer = JSONWriter(capacity: 256)
        writer.problem(problem)
        return Response(status: status, headers: headers, body: .init(byteBuffer: writer.buffer))
    }
}

extension APIError {
    /// The client-facing error for any error thrown while handling a request.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as StoreError: self.init(error)
        case let error as UseCaseError: self.init(error)
        case let error as PhotoError: self.init(error)
        case let error as HTTPError:
            switch error.status {
            case .notFound: self = .notFound("route")
            case .contentTooLarge: self = .payloadTooLarge(limit: nil)
            default: self = .http(error.status, error.body ?? error.status.reasonPhrase)
            }
        case let error as any HTTPResponseError where error.status.code < 500:
            self = .http(error.status, error.status.reasonPhrase)
        default: self = .internalError
        }
    }

    init(_ error: UseCaseError) {
        switch error {
        case .invalidField(let field, let reason): self = .invalidField(field: field, reason: reason)
        case .rateLimited(let what, let seconds): self = .rateLimited(what: what, retryAfter: seconds)
        case .forbidden(let detail): self = .forbidden(detail)
        case .notFound(let what): self = .notFound(what)
        case .conflict(let code, let detail): self = .conflict(code: code, detail: detail)
        case .invalidCredentials: self = .invalidCredentials
        case .accountSuspended: self = .accountSuspended
        case .tooManyAttempts(let seconds): self = .tooManyAttempts(retryAfter: seconds)
        case .busy(let seconds): self = .busy(retryAfter: seconds)
        }
    }

    init(_ error: StoreError) {
        switch error {
        case .usernameTaken: self = .usernameTaken
        case .notFound(let what): self = .notFound(what)
        case .forbidden: self = .forbidden("Only the author can do that.")
        case .cannotFollowSelf: self = .conflict(code: .cannotFollowSelf, detail: "You cannot follow yourself.")
        case .cannotMuteSelf: self = .conflict(code: .cannotMuteSelf, detail: "You cannot mute yourself.")
        case .cannotBlockSelf: self = .conflict(code: .cannotBlockSelf, detail: "You cannot block yourself.")
        case .youBlockThem:
            self = .conflict(code: .youBlockThem, detail: "You block this account: unblock it before you follow it.")
        case .cannotReportOwnPost:
            self = .conflict(code: .cannotReportOwnPost, detail: "You cannot report your own post.")
        case .alreadyReported:
            self = .conflict(code: .alreadyReported, detail: "You have already reported this post.")
        case .database: self = .internalError
        case .unavailable: self = .databaseUnavailable
        }
    }

    init(_ error: PhotoError) {
        switch error {
        case .unsupportedFormat:
            self = .unsupportedMediaType("The file is not a JPEG, PNG, WebP or HEIC photo.")
        case .tooManyPixels(let width, let height, let limit):
            self = .invalidImage(
                code: .imageTooLarge,
                detail: "The image is \(width)×\(height) pixels; at most \(limit / 1_000_000) megapixels are allowed.")
        case .invalidImage:
            self = .invalidImage(code: .invalidImage, detail: "The image is broken or truncated and cannot be read.")
        case .processingFailed: self = .internalError
        }
    }
}
