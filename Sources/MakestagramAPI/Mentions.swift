/// The @mentions of a caption or comment, as the server notifies them and the web client links them: an `@` that does
/// not follow a letter, digit, `_` or `@`, then a username (3 to 30 of `a`–`z`, `0`–`9`, `_` and `.`, not ending in
/// `.`), not followed by a letter, digit or `_`. A username followed by `@` and a host (`@bob@example.social`) names
/// someone on another server: ``remote(of:)`` gives those, ``of(_:)`` only the people here.
public enum Mentions {
    /// How many people one text may notify (the first ones it names).
    public static let maxPerText = 20

    /// The usernames here the text mentions, each once, in the order they first appear.
    public static func of(_ text: String) -> [String] {
        scan(text, remote: false)
    }

    /// The handles (`user@host`, lowercased) of people elsewhere the text mentions, each once, in the order they first
    /// appear.
    public static func remote(of text: String) -> [String] {
        scan(text, remote: true)
    }

    static func scan(_ text: String, remote: Bool) -> [String] {
        let bytes = Array(text.utf8)
        var names: [String] = []
        var seen = Set<String>()
        var index = 0
        while index < bytes.count, names.count < maxPerText {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "@") else { continue }
            if index > 0,
                isWordByte(bytes[index - 1]) || bytes[index - 1] == UInt8(ascii: "@") || bytes[index - 1] >= 0x80
            {
                continue
            }
            var end = index + 1
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            // A name does not end in a dot: "@bob." mentions bob.
            while end > index + 1, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "@"), isHostByte(bytes[end + 1]) {
                // Someone elsewhere: the host runs to the first byte no host has, less a trailing dot.
                var hostEnd = end + 1
                while hostEnd < bytes.count, isHostByte(bytes[hostEnd]) || bytes[hostEnd] == UInt8(ascii: ":") {
                    hostEnd += 1
                }
                while bytes[hostEnd - 1] == UInt8(ascii: ".") || bytes[hostEnd - 1] == UInt8(ascii: ":") {
                    hostEnd -= 1
                }
                let host = String(decoding: bytes[(end + 1)..<hostEnd], as: UTF8.self).lowercased()
                index = hostEnd - 1
                if remote, Limits.isValidUsername(name), host.contains(".") || host.contains(":") {
                    let handle = "\(name)@\(host)"
                    if seen.insert(handle).inserted { names.append(handle) }
                }
                continue
            }
            if end < bytes.count, isWordByte(bytes[end]) || bytes[end] >= 0x80 { continue }
            guard !remote, Limits.isValidUsername(name) else { continue }
            if seen.insert(name).inserted { names.append(name) }
            index = end - 1
        }
        return names
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2E
    }

    static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x2E
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5F
    }
}
