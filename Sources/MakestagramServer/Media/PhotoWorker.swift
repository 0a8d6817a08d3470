import Foundation
import MakestagramAPI
import MakestagramStore
import NIOPosix
import Photos

/// Runs photo processing and file writing on NIO's blocking thread pool, never on the event loop, with at most
/// `concurrency` uploads being decoded at once so that memory stays bounded under parallel uploads.
struct PhotoWorker: Sendable {
    /// Variants written to disk for one upload.
    struct Stored: Sendable {
        var width: Int
        var height: Int
        var full: StoredVariant
        var thumb: StoredVariant

        var fileNames: [String] { [full.fileName, thumb.fileName] }
    }

    let processor: PhotoProcessor
    let media: any MediaStorage
    let permits: AsyncSemaphore

    init(processor: PhotoProcessor, media: any MediaStorage, concurrency: Int) {
        self.processor = processor
        self.media = media
        self.permits = AsyncSemaphore(permits: max(1, concurrency))
    }

    /// Validates `data` as a photo and writes its two avatar squares. On any failure no file is left behind.
    func storeAvatar(_ data: Data) async throws -> AvatarFiles {
        try await permits.withPermit {
            try await NIOThreadPool.singleton.runIfActive { [processor, media] in
                let avatar = try processor.processAvatar(
                    data, large: UserProfile.avatarLargeSize, small: UserProfile.avatarSmallSize)
                let large = try media.write(avatar.large.data, fileExtension: avatar.large.fileExtension)
                do {
                    let small = try media.write(avatar.small.data, fileExtension: avatar.small.fileExtension)
                    return AvatarFiles(small: small, large: large)
                } catch {
                    media.remove([large])
                    throw error
                }
            }
        }
    }

    /// Validates and processes `data`, then writes both variants. On any failure no file is left behind.
    func store(_ data: Data) async throws -> Stored {
        try await permits.withPermit {
            try await NIOThreadPool.singleton.runIfActive { [processor, media] in
                let photo = try processor.process(data)
                let full = try media.write(photo.full.data, fileExtension: photo.full.fileExtension)
                do {
                    let thumb = try media.write(photo.thumb.data, fileExtension: photo.thumb.fileExtension)
                    return Stored(
                        width: photo.width, height: photo.height,
                        full: StoredVariant(fileName: full, width: photo.full.width, height: photo.full.height),
                        thumb: StoredVariant(fileName: thumb, width: photo.thumb.width, height: photo.thumb.height))
                } catch {
                    media.remove([full])
                    throw error
                }
            }
        }
    }
}
