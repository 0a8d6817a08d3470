import Foundation
import MakestagramAPI
import MakestagramStore

/// Opaque pagination cursors: base64url of `v1:<list>:<a|n>:<key>`. The list name stops a cursor from one list
/// being used on another; clients never need to look inside.
enum Cursor {
    /// Encodes a position in `list`.
    static func encode(_ list: String, _ position: PageRequest.Position) -> String {
        let text: String
        switch position {
        case .start: text = "v1:\(list):s:0"
        case .after(let key): text = "v1:\(list):a:\(key)"
        case .newerThan(let key): text = "v1:\(list):n:\(key)"
        }
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes a cursor issued for `list`; throws ``APIError/invalidCursor`` for anything else.
    static func decode(_ cursor: String, list: String) throws -> PageRequest.Position {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard cursor.count <= 200, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8)
        else { throw APIError.invalidCursor }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", parts[1] == list, let key = Int64(parts[3]), key >= 0 else {
            throw APIError.invalidCursor
        }
        switch parts[2] {
        case "s": return .start
        case "a": return .after(key)
        case "n": return .newerThan(key)
        default: throw APIError.invalidCursor
        }
    }
}

extension PageResult {
    /// The wire page for this result, with cursors for `list`.
    func page(_ list: String) -> Page<Item> where Item: Codable {
        Page(
            items: items, nextCursor: nextKey.map { Cursor.encode(list, .after($0)) },
            newerCursor: newestKey.map { Cursor.encode(list, .newerThan($0)) })
    }

    /// The wire page for a list that only pages forward (no newer cursor).
    func forwardPage(_ list: String) -> Page<Item> where Item: Codable {
        Page(items: items, nextCursor: nextKey.map { Cursor.encode(list, .after($0)) })
    }
}
