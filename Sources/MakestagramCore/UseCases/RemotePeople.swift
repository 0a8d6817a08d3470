import Foundation
import MakestagramAPI
import Synchronization

/// Finds people on other servers by handle: what federation provides to the use cases (none when it is off).
package protocol RemoteDirectory: Sendable {
    /// The username here (`user@host`) of the person `handle` names (`user@host`, `@user@host`, or their actor's
    /// URL), fetched from their server and kept; nil when it names nobody reachable.
    func resolve(_ handle: String) async throws -> String?
    /// Reads the document of the person `username` (`user@host`) names again, and keeps what it says.
    func refresh(_ username: String) async throws
}

/// The directory of people on other servers, set once federation is up.
package final class RemotePeople: Sendable {
    private let directory = Mutex<(any RemoteDirectory)?>(nil)

    package init() {}

    package func use(_ directory: any RemoteDirectory) {
        self.directory.withLock { $0 = directory }
    }

    /// Whether `query` names someone elsewhere: `user@host`, `@user@host` or an http(s) URL.
    package static func isHandle(_ query: String) -> Bool {
        if query.hasPrefix("https://") || query.hasPrefix("http://") { return true }
        let name = query.hasPrefix("@") ? query.dropFirst() : Substring(query)
        guard let at = name.firstIndex(of: "@") else { return false }
        return at > name.startIndex && name.index(after: at) < name.endIndex
            && !name[name.index(after: at)...].contains("@")
    }

    /// Looks up the people elsewhere `text` mentions (`@bob@example.social`), all at once, so that what mentions
    /// them reaches them; those who cannot be found stay plain text.
    package func meet(mentionedIn text: String) async {
        let handles = Mentions.remote(of: text)
        guard !handles.isEmpty, directory.withLock({ $0 }) != nil else { return }
        await withTaskGroup(of: Void.self) { group in
            for handle in handles { group.addTask { _ = await self.resolve(handle) } }
        }
    }

    /// Reads again what the servers of `usernames` say of them, all at once; those that do not answer stay as they are.
    package func refresh(_ usernames: [String]) async {
        guard !usernames.isEmpty, let directory = directory.withLock({ $0 }) else { return }
        await withTaskGroup(of: Void.self) { group in
            for username in usernames { group.addTask { try? await directory.refresh(username) } }
        }
    }

    /// The username here of the person `handle` names elsewhere; nil when federation is off or they cannot be found.
    package func resolve(_ handle: String) async -> String? {
        guard let directory = directory.withLock({ $0 }) else { return nil }
        return try? await directory.resolve(handle)
    }
}
