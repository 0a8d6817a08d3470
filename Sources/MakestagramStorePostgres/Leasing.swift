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
            group.addTask { try await self.withConnection { connection in try await body(connection) } }
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
}
