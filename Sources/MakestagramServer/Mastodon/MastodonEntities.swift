import Foundation
import MakestagramAPI

/// Mastodon's entities (docs.joinmastodon.org/entities), as this server maps its model onto them: a post is a status
/// with one image attachment, a comment is a reply (its ID prefixed `c`, so that the two never collide), a like is a
/// favourite. IDs are strings and dates ISO 8601, as Mastodon's.
enum Mastodon {
    struct Account: Encodable {
        var id: String
        var username: String
        var acct: String
        var displayName: String
        var locked = false
        var bot = false
        var discoverable = true
        var group = false
        var createdAt: Date
        var note: String
        var url: String
        var uri: String
        var avatar: String
        var avatarStatic: String
        var header: String
        var headerStatic: String
        var followersCount: Int
        var followingCount: Int
        var statusesCount: Int
        var lastStatusAt: OrNull<String>
        var emojis: [String] = []
        var fields: [String] = []
        var source: OrNull<Source>

        struct Source: Encodable {
            var privacy = "public"
            var sensitive = false
            var language = ""
            var note: String
            var fields: [String] = []
            var followRequestsCount = 0
        }
    }

    struct MediaAttachment: Encodable {
        var id: String
        var type = "image"
        var url: OrNull<String>
        var previewUrl: OrNull<String>
        var remoteUrl: OrNull<String> = nil
        var textUrl: OrNull<String> = nil
        var meta: OrNull<Meta>
        var description: OrNull<String> = nil
        var blurhash: OrNull<String> = nil

        struct Meta: Encodable {
            var original: Size
            var small: Size
        }

        struct Size: Encodable {
            var width: Int
            var height: Int
            var size: String
            var aspect: Double

            init(width: Int, height: Int) {
                self.width = width
                self.height = height
                size = "\(width)x\(height)"
                aspect = height == 0 ? 1 : Double(width) / Double(height)
            }
        }
    }

    struct Status: Encodable {
        var id: String
        var createdAt: Date
        var inReplyToId: OrNull<String>
        var inReplyToAccountId: OrNull<String>
        var sensitive = false
        var spoilerText = ""
        var visibility = "public"
        var language: OrNull<String> = nil
        var uri: String
        var url: String
        var repliesCount: Int
        var reblogsCount = 0
        var favouritesCount: Int
        var editedAt: OrNull<Date>
        var favourited: Bool
        var reblogged = false
        var muted = false
        var bookmarked = false
        var pinned = false
        var content: String
        var text: OrNull<String>
        var filtered: [String] = []
        var reblog: OrNull<String> = nil
        var application: OrNull<String> = nil
        var account: Account
        var mediaAttachments: [MediaAttachment]
        var mentions: [Mention] = []
        var tags: [Tag]
        var emojis: [String] = []
        var card: OrNull<String> = nil
        var poll: OrNull<String> = nil
    }

    /// Someone a status names (`@alice`, `@bob@example.social`).
    struct Mention: Encodable {
        var id: String
        var username: String
        var url: String
        var acct: String
    }

    struct Tag: Encodable {
        var name: String
        var url: String
    }

    struct Report: Encodable {
        var id: String
        var actionTaken = false
        var actionTakenAt: OrNull<String> = nil
        var category = "other"
        var comment: String
        var forwarded: Bool
        var createdAt: Date
        var statusIds: [String]
        var ruleIds: OrNull<[String]> = nil
        var targetAccount: Account
    }

    struct Relationship: Encodable {
        var id: String
        var following: Bool
        var showingReblogs: Bool
        var notifying = false
        var languages: OrNull<[String]> = nil
        var followedBy: Bool
        var blocking = false
        var blockedBy = false
        var muting = false
        var mutingNotifications = false
        var requested = false
        var requestedBy = false
        var domainBlocking = false
        var endorsed = false
        var note = ""
    }

    struct Notification: Encodable {
        var id: String
        var type: String
        var createdAt: Date
        var groupKey: String
        var account: Account
        var status: OrNull<Status>
    }

    struct SearchResults: Encodable {
        var accounts: [Account]
        var statuses: [Status] = []
        var hashtags: [Tag] = []
    }

    struct Context: Encodable {
        var ancestors: [Status]
        var descendants: [Status]
    }

    /// Mastodon's JSON: snake_case keys, dates with milliseconds, nil fields written as null.
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// HTML-escapes text and turns its line breaks into `<br>`, in one paragraph (Mastodon's `content`).
    static func html(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\n": escaped += "<br>"
            default: escaped.append(character)
            }
        }
        return "<p>\(escaped)</p>"
    }
}

/// A value written as JSON `null` when absent: Mastodon's entities always carry their keys.
struct OrNull<Wrapped: Encodable>: Encodable, ExpressibleByNilLiteral {
    var value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }
    init(nilLiteral: ()) { value = nil }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
