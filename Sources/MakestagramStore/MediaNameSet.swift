/// A set of media file names, kept small enough for every name of a large instance: the names the server gives
/// (32 hexadecimal digits and `.jpg` or `.webp`) are held as 128-bit numbers, one set per extension, instead of as
/// strings (16 bytes a name instead of about 80: five million names take some 110 MB instead of 900 MB); any other
/// name is kept as it is.
public struct MediaNameSet: Sendable {
    private var jpeg = Set<UInt128>()
    private var webp = Set<UInt128>()
    private var others = Set<String>()

    public init() {}

    public init(_ names: some Sequence<String>) {
        for name in names { insert(name) }
    }

    /// Adds a name; a variant item (`<width>x<height>:<file>`) adds its file.
    public mutating func insert(_ name: some StringProtocol) {
        let name = Substring(name)
        let utf8 = name.utf8
        let file = utf8.lastIndex(of: UInt8(ascii: ":")).map { name[utf8.index(after: $0)...] } ?? name
        switch Self.packed(file) {
        case .some((let number, true)): jpeg.insert(number)
        case .some((let number, false)): webp.insert(number)
        case nil: others.insert(String(file))
        }
    }

    public mutating func formUnion(_ other: MediaNameSet) {
        jpeg.formUnion(other.jpeg)
        webp.formUnion(other.webp)
        others.formUnion(other.others)
    }

    public func contains(_ name: String) -> Bool {
        switch Self.packed(name[...]) {
        case .some((let number, true)): jpeg.contains(number)
        case .some((let number, false)): webp.contains(number)
        case nil: others.contains(name)
        }
    }

    /// Whether `name` has the form of the names the server gives its media files.
    public static func isGivenName(_ name: String) -> Bool {
        packed(name[...]) != nil
    }

    public var count: Int { jpeg.count + webp.count + others.count }
    public var isEmpty: Bool { count == 0 }

    /// Every name, as strings (for small sets: tests, diagnostics).
    public var names: Set<String> {
        var names = others
        for number in jpeg { names.insert(Self.name(number, jpeg: true)) }
        for number in webp { names.insert(Self.name(number, jpeg: false)) }
        return names
    }

    /// The number and extension of a name the server gives, or nil for any other name (read from its bytes: this
    /// runs for every name of the instance).
    private static func packed(_ name: Substring) -> (UInt128, jpeg: Bool)? {
        if let result = name.utf8.withContiguousStorageIfAvailable({ packed($0) }) { return result }
        return Array(name.utf8).withUnsafeBufferPointer { packed($0) }
    }

    private static let jpegSuffix = Array(".jpg".utf8)
    private static let webpSuffix = Array(".webp".utf8)

    private static func packed(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt128, jpeg: Bool)? {
        let jpeg: Bool
        switch bytes.count {
        case 36 where bytes[32...].elementsEqual(jpegSuffix): jpeg = true
        case 37 where bytes[32...].elementsEqual(webpSuffix): jpeg = false
        default: return nil
        }
        var number: UInt128 = 0
        for byte in bytes[..<32] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            number = number << 4 | UInt128(digit)
        }
        return (number, jpeg)
    }

    private static func name(_ number: UInt128, jpeg: Bool) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 32 - hex.count) + hex + (jpeg ? ".jpg" : ".webp")
    }
}
