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
        return base64URL(Array(text.utf8))
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded base64url (RFC 4648 §5), written directly: two cursors go out with every page.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 2 < bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            let shifts = rest == 2 ? [18, 12, 6] : [18, 12]
            for shift in shifts { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
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
        Page(items: items, nextCursor: nextCursor(list), newerCursor: newerCursor(list))
    }

    /// The cursor to the page after this one in `list`, if any.
    func nextCursor(_ list: String) -> String? {
        nextKey.map { Cursor.encode(list, .after($0)) }
    }

    /// The cursor to the items newer than this page in `list`, if it has one.
    func newerCursor(_ list: String) -> String? {
        newestKey.map { Cursor.encode(list, .newerThan($0)) }
    }

    /// The wire page for a list that only pages forward (no newer cursor).
    func forwardPage(_ list: String) -> Page<Item> where Item: Codable {
        Page(items: items, nextCursor: nextKey.map { Cursor.encode(list, .after($0)) })
    }
}
