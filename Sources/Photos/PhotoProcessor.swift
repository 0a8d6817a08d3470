// Photos: the photo pipeline on libvips (the only user of CVips) — format from the bytes, pixel limit from the
// header before decoding, upright orientation, every metadata block removed, and the stored variants.

import CVips
import Foundation
import Synchronization

/// The formats the server writes.
public enum EncodedFormat: String, Sendable {
    case jpeg
    case webp

    /// The media type of files in this format.
    public var contentType: String { "image/\(rawValue)" }
    /// The file extension that goes with ``contentType``.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// One encoded rendition of an uploaded photo.
public struct EncodedImage: Sendable {
    /// The encoded bytes, with no metadata.
    public var data: Data
    public var width: Int
    public var height: Int
    public var format: EncodedFormat = .jpeg
    /// The media type of `data`.
    public var contentType: String { format.contentType }
    /// The file extension that goes with `contentType`.
    public var fileExtension: String { format.fileExtension }
}

/// An upload turned into what a post stores: upright, cut to the author's choice of aspect, stripped of metadata,
/// in several sizes.
public struct ProcessedPhoto: Sendable {
    /// The format the upload was in.
    public var sourceFormat: ImageFormat
    /// Upright size of the original as cropped (the whole original for ``PhotoProcessor/Crop/original``).
    public var width: Int
    public var height: Int
    /// JPEG at most ``PhotoProcessor/fullWidth`` wide, never upscaled: what every client can show.
    public var full: EncodedImage
    /// A ``PhotoProcessor/thumbSize`` square JPEG, cut around what libvips finds most interesting.
    public var thumb: EncodedImage
    /// The responsive widths (``PhotoProcessor/variantWidths`` up to the photo's own width, never upscaled) in
    /// ``PhotoProcessor/variantFormat``, narrowest first.
    public var variants: [EncodedImage]
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
    /// The width of the "full" JPEG (Instagram's 1080), never upscaled.
    public static let fullWidth = 1080
    /// The side of the square "thumb" variant.
    public static let thumbSize = 320
    /// The widths of the responsive variants: a phone's column at 1×, 2× and 3×, and a wide screen's photo column.
    public static let variantWidths = [320, 640, 1080, 1440]
    /// The format of the responsive variants (Benchmarks/HISTORY.md, "Which format for the responsive variants").
    public static let variantFormat = EncodedFormat.webp
    /// JPEG quality of the full and thumb variants: visually lossless for photos at about a tenth of the size of
    /// Q 100.
    public static let quality: Int32 = 82
    /// WebP quality of the responsive variants: as close to the JPEGs' fidelity as WebP's usual setting comes.
    public static let webpQuality: Int32 = 80

    /// How the author wants the photo cut before it is stored: whole, or around its centre to an aspect ratio.
    public enum Crop: Sendable, Equatable {
        case original
        /// Width over height, e.g. 4 / 5.
        case aspect(Double)
    }

    /// Images with more pixels than this are refused from their header.
    public var maxPixels: Int

    public init(maxPixels: Int = 50_000_000) {
        self.maxPixels = maxPixels
    }

    /// Starts libvips (once per process) so that the first upload does not pay for it; false when it cannot start.
    @discardableResult
    public static func prepare() -> Bool { Vips.ready }

    /// Hands the memory decodes have freed back to the system. A 12-megapixel HEIC decodes into about 100 MB of
    /// buffers from the C allocator; freed, they stay in its per-thread arenas, so without this a process keeps
    /// the resident size of the most uploads that ever ran at once. Costs about a millisecond; call it after a photo.
    public static func returnFreedMemory() {
        mk_return_freed_memory()
    }

    /// Checks `data`, cuts it as `crop` says and makes the full, thumb and responsive variants.
    public func process(_ data: Data, crop: Crop = .original) throws(PhotoError) -> ProcessedPhoto {
        let result: Result<ProcessedPhoto, PhotoError> = data.withUnsafeBytes { bytes in
            Result { () throws(PhotoError) -> ProcessedPhoto in try process(bytes, crop: crop) }
        }
        return try result.get()
    }

    /// The largest part of a `width` × `height` image with the aspect `crop` asks for, around its centre.
    public static func croppedSize(width: Int, height: Int, crop: Crop) -> (width: Int, height: Int) {
        guard case .aspect(let ratio) = crop, ratio > 0 else { return (width, height) }
        if Double(width) / Double(height) > ratio {
            return (max(1, min(width, Int((Double(height) * ratio).rounded()))), height)
        }
        return (width, max(1, min(height, Int((Double(width) / ratio).rounded()))))
    }

    /// The widths of the responsive variants of a photo `width` pixels wide: the steps it reaches, and its own
    /// width when that lies below the widest step (so the sharpest variant is the photo itself, never upscaled).
    public static func variantWidths(upTo width: Int) -> [Int] {
        let reached = variantWidths.filter { $0 <= width }
        return width < variantWidths.last! && !reached.contains(width) ? reached + [width] : reached
    }
    /// Checks `data` as ``process(_:)`` does and makes an avatar's two squares, `large` and `small` pixels wide, cut
    /// where libvips finds the most interesting part of the photo.
    public func processAvatar(_ data: Data, large: Int, small: Int) throws(PhotoError) -> ProcessedAvatar {
        let result: Result<ProcessedAvatar, PhotoError> = data.withUnsafeBytes { bytes in
            Result { () throws(PhotoError) -> ProcessedAvatar in
                _ = try validatedHeader(bytes)
                let square = try Self.decode(
                    bytes, width: large, height: large, crop: Int32(MK_CROP_ATTENTION), upscale: true
                ) { .invalidImage($0) }
                defer { mk_unref(square) }
                return ProcessedAvatar(
                    large: try Self.encode(square, width: large, height: large, crop: MK_FIT, as: .jpeg),
                    small: try Self.encode(square, width: small, height: small, crop: MK_FIT, as: .jpeg))
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

    private func process(_ bytes: UnsafeRawBufferPointer, crop: Crop) throws(PhotoError) -> ProcessedPhoto {
        let header = try validatedHeader(bytes)
        let (width, height) = Self.croppedSize(width: header.width, height: header.height, crop: crop)
        // One decode, at the largest width any variant needs, already cut to the chosen aspect; every variant is
        // made from those pixels in memory.
        let largest = min(Self.variantWidths.last!, width)
        let box: (Int, Int, Int32) =
            crop == .original
            ? (largest, Self.unbounded, Int32(MK_FIT))
            : (
                largest, max(1, Int((Double(largest) * Double(height) / Double(width)).rounded())),
                Int32(MK_CROP_CENTRE)
            )
        let base = try Self.decode(bytes, width: box.0, height: box.1, crop: box.2) { .invalidImage($0) }
        defer { mk_unref(base) }
        let baseWidth = Int(vips_image_get_width(base))
        var jobs = Self.variantJobs(upTo: baseWidth)
        jobs.append(
            EncodeJob(width: min(Self.fullWidth, baseWidth), height: Self.unbounded, crop: MK_FIT, format: .jpeg))
        jobs.append(
            EncodeJob(
                width: Self.thumbSize, height: Self.thumbSize, crop: MK_CROP_ATTENTION, upscale: true, format: .jpeg))
        var images = try Self.encode(base, jobs)
        let thumb = images.removeLast()
        let full = images.removeLast()
        return ProcessedPhoto(
            sourceFormat: header.format, width: width, height: height, full: full, thumb: thumb, variants: images)
    }

    /// One rendition to cut from a decoded photo.
    private struct EncodeJob {
        var width: Int
        var height: Int
        var crop: Int
        var upscale = false
        var format: EncodedFormat
    }

    /// Encodes every job from the same decoded pixels, on as many cores as are free at once (each encode is
    /// single-threaded, the decoded image is read-only), and answers them in the order of `jobs`.
    private static func encode(_ image: UnsafeMutablePointer<VipsImage>, _ jobs: [EncodeJob]) throws(PhotoError)
        -> [EncodedImage]
    {
        let results = Mutex([Result<EncodedImage, PhotoError>?](repeating: nil, count: jobs.count))
        // The widest renditions take longest: start them first.
        let order = jobs.indices.sorted { jobs[$0].width * jobs[$0].height > jobs[$1].width * jobs[$1].height }
        let shared = SharedImage(image: image)
        DispatchQueue.concurrentPerform(iterations: order.count) { step in
            let index = order[step]
            let job = jobs[index]
            let result = Result { () throws(PhotoError) -> EncodedImage in
                try encode(
                    shared.image, width: job.width, height: job.height, crop: job.crop, upscale: job.upscale,
                    as: job.format)
            }
            results.withLock { $0[index] = result }
        }
        var images: [EncodedImage] = []
        for result in results.withLock({ $0 }) {
            guard let result else { throw .processingFailed("an encode did not run") }
            images.append(try result.get())
        }
        return images
    }

    /// A decoded image that several threads read at once (libvips images are immutable once computed).
    private struct SharedImage: @unchecked Sendable {
        let image: UnsafeMutablePointer<VipsImage>
    }

    /// The responsive variants of a photo already stored (its full JPEG, for posts from before variants): up to
    /// its own width, never upscaled.
    public func variants(ofStored data: Data) throws(PhotoError) -> [EncodedImage] {
        let result: Result<[EncodedImage], PhotoError> = data.withUnsafeBytes { bytes in
            Result { () throws(PhotoError) -> [EncodedImage] in
                let header = try validatedHeader(bytes)
                let base = try Self.decode(
                    bytes, width: min(Self.variantWidths.last!, header.width), height: Self.unbounded,
                    crop: Int32(MK_FIT)
                ) { .invalidImage($0) }
                defer { mk_unref(base) }
                return try Self.variants(of: base)
            }
        }
        return try result.get()
    }

    /// The responsive variants of a decoded photo.
    private static func variants(of base: UnsafeMutablePointer<VipsImage>) throws(PhotoError) -> [EncodedImage] {
        try encode(base, variantJobs(upTo: Int(vips_image_get_width(base))))
    }

    /// The responsive variants of a photo `width` pixels wide, as encode jobs.
    private static func variantJobs(upTo width: Int) -> [EncodeJob] {
        variantWidths(upTo: width).map { EncodeJob(width: $0, height: unbounded, crop: MK_FIT, format: variantFormat) }
    }

    /// A box side that never constrains (libvips' largest coordinate).
    static let unbounded = 10_000_000

    /// Decodes `bytes` upright into a `width` × `height` box as `crop` says (enlarging only with `upscale`), as 8-bit
    /// sRGB without alpha, computed into memory.
    private static func decode(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, crop: Int32, upscale: Bool = false,
        failure: (String) -> PhotoError
    ) throws(PhotoError) -> UnsafeMutablePointer<VipsImage> {
        guard let source = bytes.baseAddress else { throw failure("empty image") }
        var images: [UnsafeMutablePointer<VipsImage>] = []
        defer { images.forEach(mk_unref) }
        func step(_ operation: (inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws(PhotoError) {
            var out: UnsafeMutablePointer<VipsImage>?
            guard operation(&out) == 0, let out else { throw failure(Vips.takeError()) }
            images.append(out)
        }
        try step { mk_thumbnail(source, bytes.count, &$0, Int32(width), Int32(height), crop, upscale ? 1 : 0) }
        if vips_image_hasalpha(images.last!) != 0 {
            try step { mk_flatten_white(images.last!, &$0) }
        }
        try step { mk_to_srgb(images.last!, &$0) }
        try step { mk_cast_uchar(images.last!, &$0) }
        guard let computed = mk_copy_memory(images.last!) else { throw failure(Vips.takeError()) }
        return computed
    }

    /// Shrinks the decoded `image` into a `width` × `height` box as `crop` says and encodes it without metadata.
    private static func encode(
        _ image: UnsafeMutablePointer<VipsImage>, width: Int, height: Int, crop: Int, upscale: Bool = false,
        as format: EncodedFormat
    ) throws(PhotoError) -> EncodedImage {
        var out: UnsafeMutablePointer<VipsImage>?
        guard mk_thumbnail_image(image, &out, Int32(width), Int32(height), Int32(crop), upscale ? 1 : 0) == 0, let out
        else {
            throw .processingFailed(Vips.takeError())
        }
        defer { mk_unref(out) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let saved =
            switch format {
            case .jpeg: mk_jpeg_save(out, &buffer, &length, quality)
            case .webp: mk_webp_save(out, &buffer, &length, webpQuality)
            }
        guard saved == 0, let buffer else { throw .processingFailed(Vips.takeError()) }
        defer { g_free(buffer) }
        var data = Data(bytes: buffer, count: length)
        if format == .webp {
            guard let stripped = WebPContainer.strippingMetadata(data) else {
                throw .processingFailed("libvips wrote a WebP file without a lossy image chunk")
            }
            data = stripped
        }
        return EncodedImage(
            data: data, width: Int(vips_image_get_width(out)), height: Int(vips_image_get_height(out)), format: format)
    }
}
