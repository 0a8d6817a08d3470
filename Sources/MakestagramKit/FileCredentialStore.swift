import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps sessions in a JSON file that only its owner can read or write (mode 0600, in a 0700 folder):
/// `$XDG_CONFIG_HOME/makestagram/credentials.json`, or `~/.config/makestagram/credentials.json`.
/// The file is replaced atomically, and created with its final mode, so a token is never readable by others,
/// not even for a moment.
public struct FileCredentialStore: CredentialStore {
    /// The credentials file.
    public let file: URL

    /// A store in `file`, or in the user's config folder.
    public init(file: URL? = nil) {
        self.file = file ?? Self.defaultFile()
    }

    static func defaultFile() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".config")
        return config.appendingPathComponent("makestagram/credentials.json")
    }

    public func load(server: URL) throws -> Credentials? {
        try all()[server.absoluteString]
    }

    public func save(_ credentials: Credentials) throws {
        var sessions = try all()
        sessions[credentials.server.absoluteString] = credentials
        try store(sessions)
    }

    public func delete(server: URL) throws {
        var sessions = try all()
        guard sessions.removeValue(forKey: server.absoluteString) != nil else { return }
        try store(sessions)
    }

    private func all() throws -> [String: Credentials] {
        guard let data = FileManager.default.contents(atPath: file.path), !data.isEmpty else { return [:] }
        return try JSONDecoder().decode([String: Credentials].self, from: data)
    }

    private func store(_ sessions: [String: Credentials]) throws {
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(sessions)
        let temporary = folder.appendingPathComponent(".credentials-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path])
        }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}
