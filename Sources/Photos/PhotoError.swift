/// Why an upload cannot become a post's photo.
public enum PhotoError: Error, Sendable, Equatable {
    /// The bytes are not JPEG, PNG, WebP or HEIC.
    case unsupportedFormat
    /// The image has more pixels than allowed; known from its header, before decoding.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The image is broken or truncated; the message is libvips' account of it.
    case invalidImage(String)
    /// libvips failed while encoding a variant; the message is libvips' account of it.
    case processingFailed(String)
}
