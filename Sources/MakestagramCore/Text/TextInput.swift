import Foundation
import MakestagramAPI

/// Checks every text field a client sends, refusing with 422 and a reason instead of changing or cutting it.
package enum TextInput {
    /// Bytes a client sent as the text of `field`: refused with 422 when they are not UTF-8, never repaired (a byte
    /// replaced by U+FFFD, or a value dropped, would store something the client did not send).
    package static func utf8(_ bytes: some Collection<UInt8>, field: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UseCaseError.invalidField(field: field, reason: "is not valid UTF-8 text")
        }
        return text
    }

    /// A username in its stored form (``TextRules/normalizedUsername(_:)``); refuses handles that are not valid
    /// and, when `registering`, reserved names.
    package static func username(_ raw: String, registering: Bool = false) throws -> String {
        if let scalar = TextRules.controlCharacter(in: raw) {
            throw UseCaseError.invalidField(
                field: "username", reason: "contains a control character (\(TextRules.describe(scalar)))")
        }
        let username = TextRules.normalizedUsername(raw)
        guard Limits.isValidUsername(username) else {
            throw UseCaseError.invalidField(
                field: "username", reason: "use 3 to 30 characters: lower-case letters, digits, '_' and '.'")
        }
        if registering, TextRules.reservedUsernames.contains(username) {
            throw UseCaseError.invalidField(field: "username", reason: "'\(username)' is reserved; choose another")
        }
        return username
    }

    /// A password's shape: 8 to 72 bytes (bcrypt reads no more) and no control characters (C libraries stop at a
    /// NUL, so "abc\u{0}x" would equal "abc"). Checked before any hashing, at log-in too.
    package static func passwordShape(_ password: String, field: String = "password") throws {
        guard Limits.passwordBytes.contains(password.utf8.count) else {
            throw UseCaseError.invalidField(field: field, reason: "use 8 to 72 bytes")
        }
        if let scalar = TextRules.controlCharacter(in: password) {
            throw UseCaseError.invalidField(
                field: field, reason: "contains a control character (\(TextRules.describe(scalar)))")
        }
    }

    /// A new password: its shape, and not one that attackers try first.
    package static func newPassword(_ password: String, username: String, field: String = "password") throws {
        try passwordShape(password, field: field)
        let lowered = password.lowercased()
        if lowered.hasPrefix(username) && lowered.count < username.count + 4 {
            throw UseCaseError.invalidField(field: field, reason: "too close to the username; choose another")
        }
        if CommonPasswords.contains(lowered) {
            throw UseCaseError.invalidField(
                field: field,
                reason: "this password is among the most common ones, which are guessed first; choose another")
        }
    }

    /// A display name, trimmed: 1 to 50 characters without control or bidirectional formatting characters.
    /// The server `raw` names (``DomainName/normalized(_:)``), or an invalid `domain` field.
    package static func domain(_ raw: String) throws -> String {
        guard let domain = DomainName.normalized(raw) else {
            throw UseCaseError.invalidField(
                field: "domain", reason: "must be a server's host name, such as example.social")
        }
        return domain
    }

    package static func displayName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scalar = TextRules.controlCharacter(in: name) {
            throw UseCaseError.invalidField(
                field: "displayName", reason: "contains a control character (\(TextRules.describe(scalar)))")
        }
        if let scalar = TextRules.bidiControl(in: name) {
            throw UseCaseError.invalidField(
                field: "displayName", reason: "contains a text-direction control (\(TextRules.describe(scalar)))")
        }
        guard Limits.displayNameLength.contains(name.unicodeScalars.count) else {
            throw UseCaseError.invalidField(field: "displayName", reason: "use 1 to 50 characters")
        }
        return name
    }

    /// Multi-line text (captions, comments, report reasons), trimmed, with line breaks as LF: tabs and line breaks
    /// are kept, other control characters refused; `length` counts Unicode scalars.
    package static func multiline(_ raw: String, field: String, length: ClosedRange<Int>) throws -> String {
        let text = TextRules.normalizedLineBreaks(raw).trimmingCharacters(in: .whitespacesAndNewlines)
        if let scalar = TextRules.controlCharacter(in: text, multiline: true) {
            throw UseCaseError.invalidField(
                field: field, reason: "contains a control character (\(TextRules.describe(scalar)))")
        }
        guard length.contains(text.unicodeScalars.count) else {
            let most =
                length.upperBound >= 1000
                ? "\(length.upperBound / 1000),\(String(length.upperBound % 1000 + 1000).dropFirst())"
                : "\(length.upperBound)"
            let range =
                length.lowerBound == 0 ? "at most \(most) characters" : "\(length.lowerBound) to \(most) characters"
            throw UseCaseError.invalidField(field: field, reason: "write \(range)")
        }
        return text
    }
}

/// The common passwords refused at sign-up (from zxcvbn's list; see Resources/common-passwords.txt), read once.
package enum CommonPasswords {
    package static func contains(_ lowercased: String) -> Bool {
        list.contains(lowercased)
    }

    private static let list: Set<String> = {
        guard
            let url = Bundle.module.url(
                forResource: "common-passwords", withExtension: "txt", subdirectory: "Resources"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [] }
        return Set(text.split(separator: "\n").lazy.filter { !$0.hasPrefix("#") }.map { $0.lowercased() })
    }()
}
