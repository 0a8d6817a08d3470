import Foundation
import MakestagramAPI

/// Loads photos and avatars, from the offline cache when they were seen before (media files never change, so a
/// cached copy is always right) and from the server otherwise.
public struct ImageLoader: Sendable {
    let client: APIClient
    let cache: OfflineCache?

    /// The bytes (JPEG) of an image variant.
    public func data(for variant: ImageVariant) async throws -> Data {
        try await data(forURL: variant.url)
    }

    /// The bytes of a media URL (`/media/…`).
    public func data(forURL url: String) async throws -> Data {
        if let cached = cache?.image(url) { return cached }
        let data = try await client.media(url)
        cache?.storeImage(data, for: url)
        return data
    }
}
