/// Every `code` the server answers problems with: the one list that the server, the SDK, the command line and
/// (through the constants the server gives it) the web client share.
///
/// On the wire ``Problem/code`` stays a string, so that a client keeps working when a newer server answers a code it
/// does not know; ``Problem/kind`` reads it as one of these.
public enum ProblemCode: String, Codable, Sendable, CaseIterable {
    /// The request body is not valid JSON or not of the expected form (400).
    case malformedBody = "malformed_body"
    /// A field is present but its value is not allowed (422).
    case invalidField = "invalid_field"
    /// A query parameter is not allowed (400).
    case invalidParameter = "invalid_parameter"
    /// A pagination cursor was not one the server issued for this list (400).
    case invalidCursor = "invalid_cursor"
    /// The request could not be parsed as HTTP, or is otherwise malformed (400).
    case badRequest = "bad_request"
    /// The client stopped sending the request before it was whole (400; nobody reads it).
    case clientAborted = "client_aborted"
    /// No valid bearer token (401).
    case unauthorized
    /// Wrong username or password (401).
    case invalidCredentials = "invalid_credentials"
    /// The viewer may not do this (403).
    case forbidden
    /// The account is suspended by the moderators: log-in is refused (403).
    case accountSuspended = "account_suspended"
    /// No such user, post, comment, file or route (404).
    case notFound = "not_found"
    /// The path exists but not with this method (405, with `Allow`).
    case methodNotAllowed = "method_not_allowed"
    /// The request did not arrive in time (408).
    case requestTimeout = "request_timeout"
    /// The username is taken (409).
    case usernameTaken = "username_taken"
    /// A user cannot follow themselves (409).
    case cannotFollowSelf = "cannot_follow_self"
    /// A user cannot mute themselves (409).
    case cannotMuteSelf = "cannot_mute_self"
    /// A user cannot block themselves (409).
    case cannotBlockSelf = "cannot_block_self"
    /// A user blocks as many servers as one can (``Limits/maxDomainBlocks``) (409).
    case tooManyDomainBlocks = "too_many_domain_blocks"
    /// You block this user: unblock them before you follow them (409).
    case youBlockThem = "you_block_them"
    /// A user cannot report their own post (409).
    case cannotReportOwnPost = "cannot_report_own_post"
    /// The user already reported this post (409).
    case alreadyReported = "already_reported"
    /// The body is larger than the server accepts (413).
    case payloadTooLarge = "payload_too_large"
    /// The body is not of a type the endpoint takes (415).
    case unsupportedMediaType = "unsupported_media_type"
    /// The image is broken or truncated (422).
    case invalidImage = "invalid_image"
    /// The image has more pixels than the server accepts (422).
    case imageTooLarge = "image_too_large"
    /// A WebSocket endpoint asked without an upgrade (426).
    case upgradeRequired = "upgrade_required"
    /// Too many failed log-ins from this address (429, with `Retry-After`).
    case tooManyAttempts = "too_many_attempts"
    /// The client used its share of an action (429, with `Retry-After`).
    case rateLimited = "rate_limited"
    /// The server failed; nothing was changed (500).
    case internalError = "internal_error"
    /// The server is at its connection limit (503).
    case serviceUnavailable = "service_unavailable"
    /// The server is checking too many log-ins at once (503, with `Retry-After`).
    case serverBusy = "server_busy"
}

extension Problem {
    /// A problem with one of the known codes.
    public init(status: Int, code: ProblemCode, title: String, detail: String) {
        self.init(status: status, code: code.rawValue, title: title, detail: detail)
    }

    /// The code, if it is one this version knows.
    public var kind: ProblemCode? { ProblemCode(rawValue: code) }
}
