import MakestagramStore
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` on a pooled connection, or throws ``StoreError/unavailable(_:)`` when it has not finished within
    /// `timeout`: while the database is unreachable the pool would keep a request waiting for a connection (and
    /// the client waiting for an answer) instead of failing it.
    func leased<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await abandoning(after: timeout) { try await self.withOpenConnection(body) }
    }

    /// Runs `body` on a pooled connection that is open when `body` starts.
    ///
    /// The pool may lease a connection that the server has just closed, before it has noticed; and postgres-nio
    /// drops a query written to a closed connection, leaving it unanswered for ever and deaf to cancellation. Such a
    /// connection is set aside and another one leased. (A connection that closes between this check and the query's
    /// write can still swallow the query: ``abandoning(after:_:)`` answers its caller all the same.)
    func withOpenConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        for _ in 0..<3 {
            let answer: T? = try await withConnection { connection in
                if connection.isClosed { return nil }
                return try await body(connection)
            }
            if let answer { return answer }
        }
        throw StoreError.unavailable("the database keeps closing its connections")
    }
}

/// Runs `work` in a task of its own and answers with whichever comes first: its result, ``StoreError/unavailable(_:)``
/// once `timeout` has passed, or `CancellationError` when the caller is cancelled. The work is then cancelled but
/// not waited for: a database query that will never be answered (see ``PostgresClient/withOpenConnection(_:)``)
/// cannot hold its caller, as it would hold a task group that must wait for every child. Work runs without the
/// caller's task executor preference.
func abandoning<T: Sendable>(after timeout: Duration, _ work: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    let answer = FirstAnswer<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            answer.arm(continuation)
            let running = Task {
                do {
                    answer.give(.success(try await work()))
                } catch {
                    answer.give(.failure(error))
                }
            }
            let timer = Task {
                try await Task.sleep(for: timeout)
                answer.give(.failure(StoreError.unavailable("the database did not answer within \(timeout)")))
            }
            answer.whenGiven {
                running.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        answer.give(.failure(CancellationError()))
    }
}

/// The first result given, passed once to the continuation (whichever of the two arrives first).
private final class FirstAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        /// The answer, once given.
        var result: Result<T, any Error>?
        var onGiven: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<T, any Error>) {
        let result = state.withLock { state -> Result<T, any Error>? in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            return result
        }
        if let result { continuation.resume(with: result) }
    }

    /// Runs `action` once an answer is given (at once if one has been).
    func whenGiven(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.result != nil { return true }
            state.onGiven = action
            return false
        }
        if now { action() }
    }

    func give(_ result: Result<T, any Error>) {
        let (continuation, action) = state.withLock {
            state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer {
                state.continuation = nil
                state.onGiven = nil
            }
            return (state.continuation, state.onGiven)
        }
        continuation?.resume(with: result)
        action?()
    }
}
