import Foundation
import MakestagramAPI

/// What every ActivityStreams document here shares: the context, the public audience, origins, and the formats of
/// dates, media types and text.
public enum ActivityStreams {
    public static let publicAudience = "https://www.w3.org/ns/activitystreams#Public"
    static var context: [Any] { ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"] }

    /// A URL's origin: scheme, lower-case host and port (the scheme's default when absent). Two ids are on one server
    /// when their origins are equal.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false)?.lowercased(),
            !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// The host a handle is on (`user@host`), lowercased, with its port when the URL names one; nil without a host.
    static func domain(of url: URL) -> String? {
        guard let host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty else { return nil }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// The user and host (with its port, if any) a handle names (`user@host`, `@user@host`, any letter case), or nil
    /// for anything else: a path, query or second `@` after the host, an empty or hyphen-edged label, a trailing dot,
    /// characters outside ASCII letters, digits, `.` and `-` (a lookalike in another script), a port outside
    /// 1–65535. A punycode name (`xn--…`) is taken as the name it is.
    package static func handle(_ text: String) -> (user: String, host: String)? {
        let name = text.hasPrefix("@") ? text.dropFirst() : Substring(text)
        let parts = name.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let user = parts[0].lowercased()
        let host = parts[1].lowercased()
        guard user.range(of: #"^[a-z0-9_.\-]{1,64}$"#, options: .regularExpression) != nil,
            host.range(of: #"^[a-z0-9.\-]+(:[0-9]{1,5})?$"#, options: .regularExpression) != nil
        else { return nil }
        let pieces = host.split(separator: ":", omittingEmptySubsequences: false)
        guard let hostName = pieces.first, !hostName.hasSuffix("."),
            DomainName.normalized(String(hostName)) == String(hostName)
        else { return nil }
        if pieces.count == 2 {
            guard let port = Int(pieces[1]), (1...65_535).contains(port) else { return nil }
        }
        return (user, host)
    }

    package static func origin(of text: String) -> String? {
        URL(string: text).flatMap { origin(of: $0) }
    }

    /// Serialises a document.
    public static func data(_ object: JSONObject) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    static func isoDate(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted)
        )
        .replacingOccurrences(of: "+0000", with: "Z")
    }

    static func mediaType(of path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "png": "image/png"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "gif": "image/gif"
        default: "image/jpeg"
        }
    }

    /// Plain text as HTML: escaped, hashtags and mentions linked (people elsewhere to the links `elsewhere` gives by
    /// handle), line breaks kept.
    static func html(_ text: String, base: String, elsewhere: [String: String] = [:]) -> String {
        guard !text.isEmpty else { return "" }
        var escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        escaped = escaped.replacing(/(^|[^\w&])#([\p{L}\p{N}_]+)/) { match in
            "\(match.output.1)<a href=\"\(base)/t/\(match.output.2.lowercased())\" class=\"mention hashtag\" rel=\"tag\">#<span>\(match.output.2)</span></a>"
        }
        escaped = escaped.replacing(/(^|[^\w&])@([a-z0-9_.]{3,30})\b(?![@.]?[a-z0-9_])/) { match in
            "\(match.output.1)<span class=\"h-card\"><a href=\"\(base)/users/\(match.output.2)\" class=\"u-url mention\">@<span>\(match.output.2)</span></a></span>"
        }
        // People elsewhere (`@bob@example.social`), linked to their profile when known, else left as text; last, so
        // that their links are not read again.
        escaped = escaped.replacing(/(^|[^\w@])@([a-z0-9_.]{3,30})@([A-Za-z0-9.\-]+(?::[0-9]+)?)/) { match in
            let handle = "\(match.output.2)@\(match.output.3.lowercased())"
            guard let link = elsewhere[handle] else { return "\(match.output.1)@\(handle)" }
            let href = link.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            return
                "\(match.output.1)<span class=\"h-card\"><a href=\"\(href)\" class=\"u-url mention\">@<span>\(match.output.2)</span></a></span>"
        }
        return "<p>" + escaped.replacingOccurrences(of: "\n", with: "<br>") + "</p>"
    }

    /// HTML from another server as plain text: tags dropped, paragraphs and breaks as line breaks, entities decoded.
    static func plainText(_ html: String) -> String {
        var text = html.replacing(/<br\s*\/?>/.ignoresCase(), with: "\n")
        text = text.replacing(/<\/p>\s*<p[^>]*>/.ignoresCase(), with: "\n\n")
        text = text.replacing(/<[^>]*>/, with: "")
        for (entity, character) in [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&nbsp;", " "),
            ("&amp;", "&"),
        ] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
