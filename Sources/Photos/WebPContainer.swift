import Foundation

/// The RIFF container of a WebP file, for the one edit the pipeline needs: libvips 8.14 writes EXIF (its own, and
/// the source's with GPS), XMP and ICC chunks into WebP even when asked to strip them, so the encoded file is
/// rewritten as a simple lossy WebP that holds its image chunk alone.
enum WebPContainer {
    /// `data` reduced to `RIFF <size> WEBP` and its `VP8 ` chunk; nil when it is not a lossy WebP (an image with
    /// alpha or animation, which the pipeline never makes, would need the extended format).
    static func strippingMetadata(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count >= 20, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50]
        else { return nil }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let padded = size + (size & 1)
            guard offset + 8 + size <= bytes.count else { return nil }
            if bytes[offset..<offset + 4] == [0x56, 0x50, 0x38, 0x20] {  // "VP8 "
                let chunk = bytes[offset..<min(bytes.count, offset + 8 + padded)]
                let riffSize = UInt32(4 + chunk.count)
                var out = Data("RIFF".utf8)
                withUnsafeBytes(of: riffSize.littleEndian) { out.append(contentsOf: $0) }
                out.append(contentsOf: Array("WEBP".utf8))
                out.append(contentsOf: chunk)
                if chunk.count < 8 + padded { out.append(0) }
                return out
            }
            offset += 8 + padded
        }
        return nil
    }
}
