import Foundation
import MakestagramAPI

/// Everything that can go wrong talking to a Makestagram server, in the terms an app acts on.
public enum MakestagramError: Error, Sendable, Equatable {
    /// The server refused the request and said why (problem details with a stable `code`).
    case server(Problem)
    /// The server could not be reached (no network, server down, timed out); the request may be retried later.
    case offline(String)
    /// The server answered something that is not what the API promises.
    case invalidResponse(String)
    /// The call needs a logged-in session and there is none.
    case notLoggedIn
    /// The caller cancelled the request.
    case cancelled

    /// The problem's stable code (`username_taken`, `invalid_image`, …), for `.server` errors.
    public var code: String? {
        if case .server(let problem) = self { return problem.code }
        return nil
    }

    /// The HTTP status, for `.server` errors.
    public var status: Int? {
        if case .server(let problem) = self { return problem.status }
        return nil
    }

    /// Whether the request never reached the server (worth queueing or retrying).
    public var isOffline: Bool {
        if case .offline = self { return true }
        return false
    }

    /// Wraps any error thrown by a transport.
    static func transport(_ error: any Error) -> MakestagramError {
        if let error = error as? MakestagramError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            return error.code == .cancelled ? .cancelled : .offline(error.localizedDescription)
        }
        return .offline(String(describing: error))
    }
}

extension MakestagramError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .server(let problem): problem.detail
        case .offline(let reason): "The server could not be reached (\(reason))."
        case .invalidResponse(let reason): "The server's answer could not be read: \(reason)."
        case .notLoggedIn: "You are not logged in."
        case .cancelled: "The request was cancelled."
        }
    }
}
