import MakestagramAPI

/// Why a use case refused what it was asked, whatever door asked: each door says it in its own format (the HTTP APIs
/// as problem details, ActivityPub as a status). Failures of the store (``MakestagramStore/StoreError``) and of the
/// photo pipeline (`PhotoError`) pass through as they are.
package enum UseCaseError: Error, Equatable, Sendable {
    /// A field's value is not acceptable; `reason` says what would be.
    case invalidField(field: String, reason: String)
    /// The person used their share of an action (named in plural words); retry after the given seconds.
    case rateLimited(what: String, retryAfter: Int)
    /// The person may not do this; `detail` says why.
    case forbidden(String)
    /// There is no such thing (or the person may not see it).
    case notFound(String)
    /// The request conflicts with how things stand.
    case conflict(ProblemCode, String)
    /// The username or password is wrong (the same answer for an unknown user).
    case invalidCredentials
    /// The password was right, but the moderators suspended the account.
    case accountSuspended
    /// Too many failed log-ins from there; retry after the given seconds.
    case tooManyAttempts(retryAfter: Int)
    /// Too many passwords are being checked right now; retry shortly.
    case busy(retryAfter: Int)
}
