import Foundation
import MakestagramStore

/// Media files on local disk, named by the server (`<32 hex>.jpg`), written atomically and durably.
struct MediaStore: Sendable {
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Whether `name` is a name this store could have given (so that no client string ever reaches the file system).
    static func isValidName(_ name: String) -> Bool {
        guard name.utf8.count == 36, name.hasSuffix(".jpg") else { return false }
        return name.utf8.prefix(32).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    func path(for name: String) -> String? {
        Self.isValidName(name) ? directory.appendingPathComponent(name).path : nil
    }

    /// Writes `data` under a new random name and returns the name. The bytes reach the disk (fsync) before the name
    /// appears, so a row that refers to it never points at a missing or partial file.
    func write(_ data: Data, fileExtension: String) throws -> String {
        let name =
            (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: .min ... .max)) }.joined()
            + "." + fileExtension
        let temporary = directory.appendingPathComponent(".tmp-\(name)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            guard rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return name
    }

    /// Removes files; missing ones are ignored.
    func remove(_ names: [String]) {
        for name in names {
            if let path = path(for: name) { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Deletes every file that no row references (left by a crash between writing files and committing their row,
    /// or between deleting a row and its files). Answers how many were removed.
    @discardableResult
    func sweep(keeping referenced: Set<String>) throws -> Int {
        var removed = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where !referenced.contains(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            removed += 1
        }
        return removed
    }
}
