/// Writes and reads the flat change records (every value a string, number, boolean or null: likes, unread counts,
/// follows, sessions) without `JSONEncoder` and `JSONDecoder`: decoding took about 10 µs per like on every instance,
/// a tenth of what a like toggle costs the server, and encoding 3 % of the server's time during toggles. Anything
/// else — a nested comment or post, a value of an unexpected type, JSON it does not accept — the reader answers nil
/// for, and `JSONDecoder` reads the record as before (and decides what is wrong with it).
extension ChangeRecord {
    package init?(flatJSON payload: String) {
        var payload = payload
        guard
            let record = payload.withUTF8({ bytes -> ChangeRecord? in
                var reader = FlatJSONReader(bytes: bytes)
                return reader.record()
            })
        else { return nil }
        self = record
    }
}

extension ChangeRecord {
    /// The record as a flat JSON object, its nil fields left out as `JSONEncoder` leaves them out; nil when it holds a
    /// comment or a post (nested objects are `JSONEncoder`'s).
    package var flatJSON: String? {
        guard comment == nil, created == nil else { return nil }
        var writer = FlatJSONWriter()
        // Every key is written here: a field added to the record cannot be forgotten.
        for key in CodingKeys.allCases {
            switch key {
            case .kind: writer.string(key, kind.rawValue)
            case .post: writer.integer(key, post)
            case .actor: writer.integer(key, actor)
            case .version: writer.integer(key, version)
            case .commentID: writer.integer(key, commentID)
            case .target: writer.integer(key, target)
            case .owner: writer.integer(key, owner)
            case .count: writer.integer(key, count.map(Int64.init))
            case .username: writer.string(key, username)
            case .displayName: writer.string(key, displayName)
            case .avatarFile: writer.string(key, avatarFile)
            case .likers: writer.string(key, likers)
            case .token: writer.string(key, token)
            case .caption: writer.string(key, caption)
            case .on: writer.bool(key, on)
            case .hidden: writer.bool(key, hidden)
            case .at:
                guard let at else { continue }
                // JSON has no infinities or NaN; `JSONEncoder` refuses them too.
                guard at.isFinite else { return nil }
                writer.number(key, at)
            case .comment, .created: continue
            }
        }
        return writer.finish()
    }
}

/// Writes a JSON object of scalar values: what ``FlatJSONReader`` and `JSONDecoder` read.
struct FlatJSONWriter {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private var text: [UInt8] = [UInt8(ascii: "{")]

    init() {
        text.reserveCapacity(256)
    }

    private mutating func key(_ key: ChangeRecord.CodingKeys) {
        if text.count > 1 { text.append(UInt8(ascii: ",")) }
        text.append(UInt8(ascii: "\""))
        text.append(contentsOf: key.rawValue.utf8)
        text.append(contentsOf: "\":".utf8)
    }

    mutating func integer(_ key: ChangeRecord.CodingKeys, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        text.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ key: ChangeRecord.CodingKeys, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        text.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A finite number, written so that it reads back as the same `Double`.
    mutating func number(_ key: ChangeRecord.CodingKeys, _ value: Double) {
        self.key(key)
        text.append(contentsOf: value.description.utf8)
    }

    mutating func string(_ key: ChangeRecord.CodingKeys, _ value: String?) {
        guard let value else { return }
        self.key(key)
        text.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): text.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): text.append(contentsOf: "\\\\".utf8)
            case 0x0A: text.append(contentsOf: "\\n".utf8)
            case 0x0D: text.append(contentsOf: "\\r".utf8)
            case 0x09: text.append(contentsOf: "\\t".utf8)
            case ..<0x20:
                text.append(contentsOf: "\\u00".utf8)
                text.append(Self.hexDigits[Int(byte >> 4)])
                text.append(Self.hexDigits[Int(byte & 0x0F)])
            default: text.append(byte)
            }
        }
        text.append(UInt8(ascii: "\""))
    }

    mutating func finish() -> String {
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }
}

/// A JSON object of scalar values, read from UTF-8.
package struct FlatJSONReader {
    package enum Value {
        case string(String)
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        case null
    }

    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    package mutating func record() -> ChangeRecord? {
        var record = ChangeRecord(kind: .like)
        var kind: ChangeRecord.Kind?
        guard consume(UInt8(ascii: "{")) else { return nil }
        if !consume(UInt8(ascii: "}")) {
            repeat {
                guard let key = string(), consume(UInt8(ascii: ":")), let value = value() else { return nil }
                guard record.set(key, value, kind: &kind) else { return nil }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        skipSpace()
        guard index == bytes.count, let kind else { return nil }
        record.kind = kind
        return record
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Skips white space, then `byte` if it comes next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func consume(word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    package mutating func value() -> Value? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "t"): return consume(word: "true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume(word: "false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume(word: "null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    /// A number as JSON writes it: an integer when it has neither fraction nor exponent and fits 64 bits.
    private mutating func number() -> Value? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard let first = digits(), first == 1 || bytes[index - first] != UInt8(ascii: "0") else { return nil }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() != nil else { return nil }
            integral = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() != nil else { return nil }
            integral = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(Value.number)
    }

    /// Skips decimal digits and answers how many, or nil for none.
    private mutating func digits() -> Int? {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index > start ? index - start : nil
    }

    /// A string, its escapes resolved; nil for a control character, a bad escape or an unpaired surrogate.
    package mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                var unescaped = Array(bytes[start..<index])
                return escapedRest(into: &unescaped)
            case ..<0x20: return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The rest of a string from its first escape on, appended to what came before it.
    private mutating func escapedRest(into text: inout [UInt8]) -> String? {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case ..<0x20: return nil
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    text.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default: text.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (whose `\u` is read), a surrogate pair taken whole.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        switch high {
        case 0xD800..<0xDC00:
            guard consume(word: "\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00..<0xE000: return nil
        default: return Unicode.Scalar(high)
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

extension FlatJSONReader.Value {
    package var string: String? { if case .string(let string) = self { string } else { nil } }
    package var integer: Int64? { if case .integer(let integer) = self { integer } else { nil } }
    package var bool: Bool? { if case .bool(let bool) = self { bool } else { nil } }
    /// Any number.
    package var double: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .number(let number): number
        default: nil
        }
    }
}

extension ChangeRecord {
    /// Sets the field `key` names from a scalar; false when the value does not fit the field, or the field is not
    /// scalar (the caller leaves the record to `JSONDecoder`). Unknown keys are skipped, as `JSONDecoder` skips them.
    fileprivate mutating func set(_ key: String, _ value: FlatJSONReader.Value, kind: inout Kind?) -> Bool {
        /// Null empties the field; otherwise `read` must find a value of its type.
        func assign<T>(_ field: inout T?, _ read: (FlatJSONReader.Value) -> T?) -> Bool {
            if case .null = value {
                field = nil
                return true
            }
            guard let read = read(value) else { return false }
            field = read
            return true
        }
        // Every key is handled here: a field added to the record cannot be forgotten.
        guard let key = CodingKeys(stringValue: key) else { return true }
        switch key {
        case .kind:
            guard let known = value.string.flatMap(Kind.init(rawValue:)) else { return false }
            kind = known
            return true
        case .post: return assign(&post, \.integer)
        case .actor: return assign(&actor, \.integer)
        case .version: return assign(&version, \.integer)
        case .commentID: return assign(&commentID, \.integer)
        case .target: return assign(&target, \.integer)
        case .owner: return assign(&owner, \.integer)
        case .count: return assign(&count) { $0.integer.flatMap { Int(exactly: $0) } }
        case .username: return assign(&username, \.string)
        case .displayName: return assign(&displayName, \.string)
        case .avatarFile: return assign(&avatarFile, \.string)
        case .likers: return assign(&likers, \.string)
        case .token: return assign(&token, \.string)
        case .caption: return assign(&caption, \.string)
        case .on: return assign(&on, \.bool)
        case .hidden: return assign(&hidden, \.bool)
        case .at: return assign(&at, \.double)
        // Nested objects: JSONDecoder's.
        case .comment, .created: if case .null = value { return true } else { return false }
        }
    }
}
