/// Limits that server and clients agree on, so that a client can check input before sending it.
public enum Limits {
    /// Usernames are 3–30 characters.
    public static let usernameLength = 3...30
    /// Passwords are 8–72 bytes of UTF-8 (bcrypt reads no more than 72).
    public static let passwordBytes = 8...72
    /// Display names are 1–50 characters.
    public static let displayNameLength = 1...50
    /// Bios are at most 150 characters (Unicode scalars), line breaks included.
    public static let bioLength = 0...150
    /// Captions are at most 2,200 characters (Unicode scalars).
    public static let captionLength = 0...2200
    /// A photo's alt text is at most 1,500 characters (Unicode scalars), line breaks included; empty means none.
    public static let altTextLength = 0...PostImage.altTextLimit
    /// Comments are 1–2,200 characters (Unicode scalars).
    public static let commentLength = 1...2200
    /// Report reasons are 1–500 characters.
    public static let reportReasonLength = 1...500
    /// A moderator's reason for an action, in characters (empty allowed).
    public static let moderationReasonLength = 0...500
    /// How long a deleted account's username stays reserved, so that nobody else can take it over, in days.
    public static let deletedUsernameReservedDays = 30
    /// The most servers one user may block.
    public static let maxDomainBlocks = 1000
    /// Page sizes: default 20, at most 100.
    public static let defaultPageSize = 20
    public static let maxPageSize = 100

    /// Whether `username` is a valid handle: 3–30 of `[a-z0-9_.]`.
    /// Whether `username` is how a person on another server is named here: `user@host` (or `user@host:port`), in lower
    /// case, at most 320 bytes.
    public static func isRemoteUsername(_ username: String) -> Bool {
        let parts = username.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, username.utf8.count <= 320, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        let name = parts[0].utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2E
                || byte == 0x2D
        }
        let host = parts[1].utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
                || byte == 0x3A
        }
        return name && host
    }

    public static func isValidUsername(_ username: String) -> Bool {
        usernameLength.contains(username.utf8.count)
            && username.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2E
            }
    }
}
