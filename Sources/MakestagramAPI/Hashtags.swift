/// The #hashtags of a caption, as the server files posts under them and the web client links them: a `#` that does
/// not follow a letter, digit, `_`, `#` or `&`, then up to ``Hashtags/maxLength`` letters, digits and underscores.
/// Tags compare in lower case (`#Golden` and `#golden` are one tag).
public enum Hashtags {
    /// The longest tag, in characters after the `#`.
    public static let maxLength = 100
    /// How many tags of one caption are filed (the first ones).
    public static let maxPerPost = 30

    /// The caption's distinct tags, lower case, in the order they first appear.
    public static func of(_ caption: String) -> [String] {
        var tags: [String] = []
        var seen = Set<String>()
        let scalars = Array(caption.unicodeScalars)
        var index = 0
        while index < scalars.count, tags.count < maxPerPost {
            defer { index += 1 }
            guard scalars[index] == "#" else { continue }
            if index > 0, isTagScalar(scalars[index - 1]) || scalars[index - 1] == "#" || scalars[index - 1] == "&" {
                continue
            }
            var end = index + 1
            while end < scalars.count, end - index - 1 < maxLength, isTagScalar(scalars[end]) { end += 1 }
            guard end > index + 1 else { continue }
            var tag = String.UnicodeScalarView()
            tag.append(contentsOf: scalars[(index + 1)..<end])
            let lowered = String(tag).lowercased()
            if seen.insert(lowered).inserted { tags.append(lowered) }
            index = end - 1
        }
        return tags
    }

    /// Whether a tag may be looked up: what ``of(_:)`` would file for `#tag`.
    public static func isValid(_ tag: String) -> Bool {
        of("#" + tag) == [tag.lowercased()] && tag.unicodeScalars.count <= maxLength
    }

    static func isTagScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}
