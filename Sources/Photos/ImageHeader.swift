import CVips

/// What an image's header says, read without decoding its pixels.
public struct ImageHeader: Sendable, Equatable {
    public var format: ImageFormat
    /// Stored size, before the EXIF orientation is applied.
    public var storedWidth: Int
    public var storedHeight: Int
    /// EXIF orientation, 1–8 (1 when absent).
    public var orientation: Int
    /// Names of the metadata blocks the file carries (`exif-data`, `xmp-data`, `iptc-data`, `icc-profile-data`, …).
    public var metadata: [String]

    /// Width as the image is shown, upright.
    public var width: Int { orientation >= 5 ? storedHeight : storedWidth }
    /// Height as the image is shown, upright.
    public var height: Int { orientation >= 5 ? storedWidth : storedHeight }

    /// Reads the header of `bytes`. Throws ``PhotoError/unsupportedFormat`` for anything but JPEG, PNG, WebP and HEIC,
    /// and ``PhotoError/invalidImage(_:)`` when the header cannot be read.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(PhotoError) -> ImageHeader {
        guard let format = ImageFormat.detect(bytes) else { throw .unsupportedFormat }
        guard Vips.ready else { throw .processingFailed("libvips failed to start") }
        guard let base = bytes.baseAddress, let image = mk_open_header(base, bytes.count) else {
            throw .invalidImage(Vips.takeError())
        }
        defer { mk_unref(image) }
        var names: [String] = []
        if let fields = vips_image_get_fields(image) {
            var index = 0
            while let field = fields[index] {
                names.append(String(cString: field))
                index += 1
            }
            g_strfreev(fields)
        }
        let blocks = names.filter { $0.hasSuffix("-data") || $0.hasPrefix("exif-") || $0.hasPrefix("png-comment") }
        return ImageHeader(
            format: format, storedWidth: Int(vips_image_get_width(image)),
            storedHeight: Int(vips_image_get_height(image)), orientation: Int(vips_image_get_orientation(image)),
            metadata: blocks)
    }
}
