import Foundation

/// What the server accepts as text, shared so that a client can check input before sending it.
///
/// Text is never silently changed or cut: a NUL or another control character is refused, not truncated at; the
/// only rewriting is of line breaks (CR LF and CR become LF) in multi-line text and the normalisation of
/// usernames.
public enum TextRules {
    /// A username as typed, in the one form it is stored and compared in: NFKC-normalised (so compatibility
    /// lookalikes such as the Kelvin sign become their plain letters) and lower-cased. Whether the result is a
    /// valid handle is ``Limits/isValidUsername(_:)``'s question.
    public static func normalizedUsername(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespaces).precomposedStringWithCompatibilityMapping.lowercased()
    }

    /// Usernames nobody can register: names that would pass for the service, its staff or its pages.
    public static let reservedUsernames: Set<String> = [
        "about", "abuse", "account", "accounts", "admin", "administrator", "api", "app", "apps", "auth", "billing",
        "blog", "contact", "dashboard", "developer", "developers", "explore", "feed", "help", "home", "info",
        "login", "logout", "mail", "makestagram", "me", "media", "moderator", "moderators", "new", "news", "null",
        "oauth", "official", "owner", "postmaster", "privacy", "register", "report", "reports", "root", "search",
        "security", "settings", "signin", "signup", "staff", "static", "status", "support", "system", "team",
        "terms", "undefined", "user", "users", "webmaster", "www",
    ]

    /// The first control character in `text` (Unicode category Cc: U+0000–U+001F and U+007F–U+009F), ignoring
    /// tab and line feed when `multiline`.
    public static func controlCharacter(in text: String, multiline: Bool = false) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            guard scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) else { return false }
            return !(multiline && (scalar == "\n" || scalar == "\t"))
        }
    }

    /// The first bidirectional formatting character in `text` (embeddings, overrides, isolates and marks), which
    /// can make a name display as something else ("evil\u{202E}moc.elgoog" reads "evilgoogle.com").
    public static func bidiControl(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
                || scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
        }
    }

    /// Multi-line text with CR LF and lone CR turned into LF (browsers send form text with CR LF).
    public static func normalizedLineBreaks(_ text: String) -> String {
        guard text.unicodeScalars.contains("\r") else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// How to name a scalar in an error message: `U+0000`.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        "U+" + String(format: "%04X", scalar.value)
    }
}
