import Foundation
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
    let media: MediaStore
    let permits: AsyncSemaphore

    init(processor: PhotoProcessor, media: MediaStore, concurrency: Int) {
        self.processor = processor
        self.media = media
        self.permits = AsyncSemaphore(permits: max(1, concurrency))
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

/// A counting semaphore for async code: at most `permits` bodies run at once; the others wait in order.
actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(permits: Int) {
        self.available = permits
    }

    func withPermit<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
