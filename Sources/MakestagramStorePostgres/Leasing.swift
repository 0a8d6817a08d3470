import MakestagramStore
import PostgresNIO

extension PostgresClient {
    /// Runs `body` on a pooled connection, or throws ``StoreError/unavailable(_:)`` when it has not finished within
    /// `timeout`: while the database is unreachable the pool would keep a request waiting for a connection (and
    /// the client waiting for an answer) instead of failing it.
    func leased<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await self.withOpenConnection { connection in try await body(connection) } }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let value)) = try await group.next() else {
                throw StoreError.unavailable("the database did not answer within \(timeout)")
            }
            return value
        }
    }

    /// Runs `body` on a pooled connection that is open when `body` starts.
    ///
    /// The pool may lease a connection that the server has just closed, before it has noticed; and postgres-nio
    /// drops a query written to a closed connection, leaving it unanswered for ever and deaf to cancellation (so no
    /// timeout could end the wait either). Such a connection is set aside and another one leased.
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
