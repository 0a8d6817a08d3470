import Foundation
import MakestagramStore

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// A media file operation that failed, with the path and the operating system's error, for the server's log.
package struct MediaError: Error, CustomStringConvertible {
    /// What was being done: `open`, `write`, `fsync`, `rename`.
    package let operation: String
    package let path: String
    package let code: Int32

    package var description: String {
        "media \(operation) failed for \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Where photo files live: named by the server, written durably before anything refers to them, read by name, and
/// shared by every server instance.
package protocol MediaStorage: Sendable {
    /// Writes `data` under a new name and answers the name; the bytes are on stable storage when it returns.
    func write(_ data: Data, fileExtension: String) throws -> String
    /// Writes `data` under `name`, a name this storage gave, in place of what it held (a file removed to save space,
    /// made again); the bytes are on stable storage when it returns.
    func write(_ data: Data, as name: String) throws
    /// The size of a file in bytes, or nil when there is none.
    func size(of name: String) -> Int?
    /// The bytes of a file, or nil when there is none (or `name` is not a name the storage gives).
    func read(_ name: String) throws -> Data?
    /// Removes files; missing ones are ignored.
    func remove(_ names: [String])
    /// Removes the files no row refers to that are older than `age` (younger ones may be an upload in flight on
    /// another instance, whose row is not committed yet); answers how many.
    func sweep(keeping referenced: MediaNameSet, olderThan age: Duration) throws -> Int
}

/// Media files in a folder (`<32 hex>.jpg` or `.webp`), written under a temporary name, flushed, renamed and the folder flushed:
/// several instances may share the folder (a network mount), as names are random and never reused.
package struct FolderMediaStorage: MediaStorage {
    package let directory: URL

    package init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Whether `name` is a name this store could have given (so that no client string ever reaches the file system).
    package static func isValidName(_ name: String) -> Bool {
        MediaNameSet.isGivenName(name)
    }

    package func path(for name: String) -> String? {
        Self.isValidName(name) ? directory.appendingPathComponent(name).path : nil
    }

    /// Writes `data` under a new random name and returns the name. The bytes reach the disk (fsync) before the name
    /// appears, and the name reaches the disk (fsync of the folder) before this returns, so a row committed after it
    /// never points at a missing or partial file, even after a power loss.
    package func write(_ data: Data, fileExtension: String) throws -> String {
        let name =
            (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: .min ... .max)) }.joined()
            + "." + fileExtension
        try write(data, as: name)
        return name
    }

    package func size(of name: String) -> Int? {
        guard let path = path(for: name) else { return nil }
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    package func write(_ data: Data, as name: String) throws {
        guard Self.isValidName(name) else { throw MediaError(operation: "name", path: name, code: EINVAL) }
        let temporary = directory.appendingPathComponent(".tmp-\(name)").path
        let final = directory.appendingPathComponent(name).path
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw MediaError(operation: "open", path: temporary, code: errno) }
        do {
            defer { close(file) }
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(file, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw MediaError(operation: "write", path: temporary, code: errno)
                    }
                    offset += written
                }
            }
            guard fsync(file) == 0 else { throw MediaError(operation: "fsync", path: temporary, code: errno) }
            guard rename(temporary, final) == 0 else { throw MediaError(operation: "rename", path: final, code: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory()
    }

    /// Flushes the folder's entries (names added or removed) to disk.
    private func syncDirectory() throws {
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw MediaError(operation: "open", path: directory.path, code: errno) }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw MediaError(operation: "fsync", path: directory.path, code: errno) }
    }

    package func read(_ name: String) throws -> Data? {
        guard let path = path(for: name) else { return nil }
        return FileManager.default.contents(atPath: path)
    }

    /// Removes files; missing ones are ignored.
    package func remove(_ names: [String]) {
        for name in names {
            if let path = path(for: name) { unlink(path) }
        }
    }

    /// Deletes every file older than `age` that no row references: left by a crash between writing files and
    /// committing their row, or between deleting a row and its files (temporary files of a crashed write included).
    /// Answers how many were removed.
    @discardableResult
    package func sweep(keeping referenced: MediaNameSet, olderThan age: Duration) throws -> Int {
        let cutoff = Date().addingTimeInterval(-age.seconds)
        var removed = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !referenced.contains(name)
        {
            let url = directory.appendingPathComponent(name)
            let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
            guard let modified, modified < cutoff else { continue }
            try? FileManager.default.removeItem(at: url)
            removed += 1
        }
        return removed
    }
}
