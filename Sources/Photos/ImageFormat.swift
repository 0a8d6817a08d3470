/// The upload formats Makestagram accepts, recognised from their first bytes (never from a name or declared type).
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case webp
    case heic

    /// The format whose signature `bytes` start with, or nil for anything else.
    public static func detect<Bytes: Collection>(_ bytes: Bytes) -> ImageFormat? where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(16))
        func matches(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) { return .webp }
        if matches(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if heifBrands.contains(brand) { return .heic }
        }
        return nil
    }

    /// ISO base media brands of HEIF still images, as iPhones and cameras write them.
    public static let heifBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
}
