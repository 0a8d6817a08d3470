// Photos: the photo pipeline on libvips (the only user of CVips) — format from the bytes, pixel limit from the
// header before decoding, upright orientation, every metadata block removed, and the stored variants.

import CVips
import Foundation

/// One encoded rendition of an uploaded photo.
public struct EncodedImage: Sendable {
    /// JPEG bytes with no metadata.
    public var data: Data
    public var width: Int
    public var height: Int
    /// The media type of `data`.
    public var contentType: String { "image/jpeg" }
    /// The file extension that goes with `contentType`.
    public var fileExtension: String { "jpg" }
}

/// An upload turned into what a post stores: upright, stripped of metadata, in two sizes.
public struct ProcessedPhoto: Sendable {
    /// The format the upload was in.
    public var sourceFormat: ImageFormat
    /// Upright size of the original.
    public var width: Int
    public var height: Int
    /// At most ``PhotoProcessor/fullSize`` on the long side, never upscaled.
    public var full: EncodedImage
    /// A ``PhotoProcessor/thumbSize`` square crop.
    public var thumb: EncodedImage
}

/// An uploaded avatar: two square crops, upright and stripped of metadata.
public struct ProcessedAvatar: Sendable {
    /// A `large` × `large` square (upscaled from a smaller photo, so that every avatar has one size).
    public var large: EncodedImage
    /// A `small` × `small` square cut from ``large``.
    public var small: EncodedImage
}

/// Validates uploads and makes their variants with libvips. Blocking and CPU-bound: call it off the event loop.
public struct PhotoProcessor: Sendable {
    /// The long side of the "full" variant.
    public static let fullSize = 1080
    /// The side of the square "thumb" variant.
    public static let thumbSize = 320
    /// JPEG quality of both variants: visually lossless for photos at about a tenth of the size of Q 100.
    public static let quality: Int32 = 82

    /// Images with more pixels than this are refused from their header.
    public var maxPixels: Int

    public init(maxPixels: Int = 50_000_000) {
        self.maxPixels = maxPixels
    }

    /// Starts libvips (once per process) so that the first upload does not pay for it; false when it cannot start.
    @discardableResult
    public static func prepare() -> Bool { Vips.ready }

    /// Checks `data` and makes the full and thumb variants.
    public func process(_ data: Data) throws(PhotoError) -> ProcessedPhoto {
        let result: Result<ProcessedPhoto, PhotoError> = data.withUnsafeBytes { bytes in
            Result { () throws(PhotoError) -> ProcessedPhoto in try process(bytes) }
        }
        return try result.get()
    }

    /// Checks `data` as ``process(_:)`` does and makes an avatar's two squares, `large` and `small` pixels wide, cut
    /// where libvips finds the most interesting part of the photo.
    public func processAvatar(_ data: Data, large: Int, small: Int) throws(PhotoError) -> ProcessedAvatar {
        let result: Result<ProcessedAvatar, PhotoError> = data.withUnsafeBytes { bytes in
            Result { () throws(PhotoError) -> ProcessedAvatar in
                _ = try validatedHeader(bytes)
                let big = try Self.render(bytes, width: large, height: large, crop: true) { .invalidImage($0) }
                let smallResult: Result<EncodedImage, PhotoError> = big.data.withUnsafeBytes { bigBytes in
                    Result { () throws(PhotoError) -> EncodedImage in
                        try Self.render(bigBytes, width: small, height: small, crop: true) { .processingFailed($0) }
                    }
                }
                return ProcessedAvatar(large: big, small: try smallResult.get())
            }
        }
        return try result.get()
    }

    /// The header of an upload whose format is known and whose pixel count is within ``maxPixels``.
    private func validatedHeader(_ bytes: UnsafeRawBufferPointer) throws(PhotoError) -> ImageHeader {
        let header = try ImageHeader.read(bytes)
        guard header.storedWidth > 0, header.storedHeight > 0 else { throw .invalidImage("the image has no pixels") }
        guard header.storedWidth * header.storedHeight <= maxPixels else {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        return header
    }

    private func process(_ bytes: UnsafeRawBufferPointer) throws(PhotoError) -> ProcessedPhoto {
        let header = try validatedHeader(bytes)
        let full = try Self.render(bytes, width: Self.fullSize, height: Self.fullSize, crop: false) {
            .invalidImage($0)
        }
        // The thumb is cut from the (small, upright, already validated) full variant rather than the original.
        let thumbResult: Result<EncodedImage, PhotoError> = full.data.withUnsafeBytes { fullBytes in
            Result { () throws(PhotoError) -> EncodedImage in
                try Self.render(fullBytes, width: Self.thumbSize, height: Self.thumbSize, crop: true) {
                    .processingFailed($0)
                }
            }
        }
        let thumb = try thumbResult.get()
        return ProcessedPhoto(
            sourceFormat: header.format, width: header.width, height: header.height, full: full, thumb: thumb)
    }

    /// Decodes, orients, resizes, converts to 8-bit sRGB without alpha and encodes as stripped JPEG.
    private static func render(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, crop: Bool,
        failure: (String) -> PhotoError
    ) throws(PhotoError) -> EncodedImage {
        guard let base = bytes.baseAddress else { throw failure("empty image") }
        var images: [UnsafeMutablePointer<VipsImage>] = []
        defer { images.forEach(mk_unref) }
        func step(_ operation: (inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws(PhotoError) {
            var out: UnsafeMutablePointer<VipsImage>?
            guard operation(&out) == 0, let out else { throw failure(Vips.takeError()) }
            images.append(out)
        }
        try step { mk_thumbnail(base, bytes.count, &$0, Int32(width), Int32(height), crop ? 1 : 0, crop ? 1 : 0) }
        if vips_image_hasalpha(images.last!) != 0 {
            try step { mk_flatten_white(images.last!, &$0) }
        }
        try step { mk_to_srgb(images.last!, &$0) }
        try step { mk_cast_uchar(images.last!, &$0) }
        let image = images.last!
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard mk_jpeg_save(image, &buffer, &length, quality) == 0, let buffer else {
            throw failure(Vips.takeError())
        }
        defer { g_free(buffer) }
        return EncodedImage(
            data: Data(bytes: buffer, count: length), width: Int(vips_image_get_width(image)),
            height: Int(vips_image_get_height(image)))
    }
}
