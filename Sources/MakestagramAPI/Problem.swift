/// An error answer (RFC 9457 problem details) with a stable machine-readable `code`.
public struct Problem: Codable, Sendable, Equatable, Error {
    /// A URI naming the kind of problem: `https://makestagram.dev/problems/<code>`.
    public var type: String
    /// A short summary of the kind of problem.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong this time, in words a person can act on.
    public var detail: String
    /// A stable identifier for the kind of problem, for programs (`username_taken`, `invalid_cursor`, …).
    public var code: String

    public init(status: Int, code: String, title: String, detail: String) {
        self.type = "https://makestagram.dev/problems/\(code)"
        self.title = title
        self.status = status
        self.detail = detail
        self.code = code
    }
}
