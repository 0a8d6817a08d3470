import Foundation
import MakestagramAPI

/// Loads photos and avatars, from the offline cache when they were seen before (media files never change, so a
/// cached copy is always right) and from the server otherwise.
public struct ImageLoader: Sendable {
    let client: APIClient
    let cache: OfflineCache?

    /// The bytes of an image variant (its ``ImageVariant/type`` says JPEG or WebP).
    public func data(for variant: ImageVariant) async throws -> Data {
        try await data(forURL: variant.url)
    }

    /// The rendition of a post's photo for a view `points` wide on a screen of `scale` pixels per point: the
    /// narrowest responsive variant with at least that many pixels (the widest when none has), or the full JPEG for
    /// posts without variants or when `acceptsWebP` is false (a decoder without WebP; Apple platforms have it since
    /// iOS 14 and macOS 11).
    public func variant(of image: PostImage, points: Double, scale: Double, acceptsWebP: Bool = true) -> ImageVariant {
        image.best(forWidth: Int((points * scale).rounded(.up)), acceptsVariants: acceptsWebP)
    }

    /// The bytes of ``variant(of:points:scale:acceptsWebP:)``.
    public func data(
        for image: PostImage, points: Double, scale: Double, acceptsWebP: Bool = true
    ) async throws -> Data {
        try await data(for: variant(of: image, points: points, scale: scale, acceptsWebP: acceptsWebP))
    }

    /// The bytes of a media URL (`/media/…`).
    public func data(forURL url: String) async throws -> Data {
        if let cached = cache?.image(url) { return cached }
        let data = try await client.media(url)
        cache?.storeImage(data, for: url)
        return data
    }
}
