import Foundation
import MakestagramAPI
import MakestagramStore
import NIOPosix
import Photos

/// Runs photo processing and file writing on NIO's blocking thread pool, never on the event loop, with at most
/// `concurrency` uploads being decoded at once so that memory stays bounded under parallel uploads.
package struct PhotoWorker: Sendable {
    /// Variants written to disk for one upload.
    package struct Stored: Sendable {
        var width: Int
        var height: Int
        var full: StoredVariant
        var thumb: StoredVariant
        var variants: [StoredVariant]

        var fileNames: [String] { [full.fileName, thumb.fileName] + variants.map(\.fileName) }
    }

    package let processor: PhotoProcessor
    package let media: any MediaStorage
    package let permits: AsyncSemaphore

    package init(processor: PhotoProcessor, media: any MediaStorage, concurrency: Int) {
        self.processor = processor
        self.media = media
        self.permits = AsyncSemaphore(permits: max(1, concurrency))
    }

    /// Validates `data` as a photo and writes its two avatar squares. On any failure no file is left behind.
    package func storeAvatar(_ data: Data) async throws -> AvatarFiles {
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

    /// Validates and processes `data` (cut as `crop` says), then writes every variant. On any failure no file is
    /// left behind.
    package func store(_ data: Data, crop: PhotoProcessor.Crop = .original) async throws -> Stored {
        try await permits.withPermit {
            try await NIOThreadPool.singleton.runIfActive { [processor, media] in
                defer { PhotoProcessor.returnFreedMemory() }
                let photo = try processor.process(data, crop: crop)
                var written: [String] = []
                func write(_ image: EncodedImage) throws -> StoredVariant {
                    let name = try media.write(image.data, fileExtension: image.fileExtension)
                    written.append(name)
                    return StoredVariant(fileName: name, width: image.width, height: image.height)
                }
                do {
                    return Stored(
                        width: photo.width, height: photo.height, full: try write(photo.full),
                        thumb: try write(photo.thumb), variants: try photo.variants.map(write))
                } catch {
                    media.remove(written)
                    throw error
                }
            }
        }
    }
}

extension PhotoWorker {
    /// Makes the responsive variants of a stored full JPEG and writes them; none when the file is gone. On any
    /// failure no file is left behind.
    package func storeVariants(ofFile name: String) async throws -> [StoredVariant] {
        try await permits.withPermit {
            try await NIOThreadPool.singleton.runIfActive { [processor, media] in
                guard let data = try media.read(name) else { return [] }
                var written: [StoredVariant] = []
                do {
                    for image in try processor.variants(ofStored: data) {
                        let file = try media.write(image.data, fileExtension: image.fileExtension)
                        written.append(StoredVariant(fileName: file, width: image.width, height: image.height))
                    }
                    return written
                } catch {
                    media.remove(written.map(\.fileName))
                    throw error
                }
            }
        }
    }
}

extension PhotoWorker {
    /// Makes a photo's files again from its source, as ``store(_:crop:)`` made them, and writes them under their old
    /// names, `files` (full, thumbnail, then each variant): a photo from another server whose files were removed to
    /// save space, fetched again. False, and nothing written, when the photo no longer makes as many files.
    package func restore(_ data: Data, as files: [String]) async throws -> Bool {
        try await permits.withPermit {
            try await NIOThreadPool.singleton.runIfActive { [processor, media] in
                defer { PhotoProcessor.returnFreedMemory() }
                let photo = try processor.process(data, crop: .original)
                let images = [photo.full, photo.thumb] + photo.variants
                guard images.count == files.count,
                    zip(images, files).allSatisfy({ $1.hasSuffix("." + $0.fileExtension) })
                else { return false }
                for (image, name) in zip(images, files) { try media.write(image.data, as: name) }
                return true
            }
        }
    }
}
