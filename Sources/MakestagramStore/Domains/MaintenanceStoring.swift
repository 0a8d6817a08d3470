import Foundation
import MakestagramAPI

/// Housekeeping: which media files rows reference, and jobs that run once across instances. Part of ``Store``; both stores implement it.
public protocol MaintenanceStoring: Sendable {
    /// Every media file name that some row references. A SQLite store reads it in short transactions, so a file
    /// of a post created meanwhile may be missing: the sweep leaves young files alone.
    func referencedMediaFiles() async throws -> MediaNameSet
    /// Runs `body` unless the job named `job` is running already, on any server instance of this database, and
    /// answers whether it ran. So housekeeping that every instance starts (the media sweep, making variants of
    /// older posts) is done once, not once per instance. The claim ends when `body` returns or throws, or when its
    /// instance dies: a job left half-done is taken up again by the next instance that asks.
    func runAlone(_ job: String, _ body: @escaping @Sendable () async throws -> Void) async throws -> Bool
}
