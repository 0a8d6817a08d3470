import Foundation
import Logging
import MakestagramCore
import MakestagramStore
import Metrics
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The operator's budget for the photos of other servers' posts kept here: at most so many bytes (`--remote-media-
/// budget`) and so old (`--remote-media-max-age`). What is over it is removed, the longest kept first, and fetched
/// again from its server (through the photo pipeline, under the same names) when someone asks for it.
final class RemoteMediaBudget: Sendable {
    /// The most bytes kept; nil: no limit.
    let maxBytes: Int?
    /// The longest a photo is kept; nil: no limit.
    let maxAge: TimeInterval?
    let rings = Doorbell()
    /// The photos being fetched again, so that a photo asked for by many at once is fetched once.
    let restoring = SharedWork<Int64, Bool>()
    let keptBytes = Gauge(label: "makestagram_federation_remote_media_bytes")
    let evicted = Counter(label: "makestagram_federation_remote_media_evicted_total")
    let refetched = Counter(label: "makestagram_federation_remote_media_refetched_total")
    /// Photos fetched again lately, by when: kept for a minute whatever the budget, so that what was just asked for
    /// is not removed before it is read.
    private let restored = Mutex<[Int64: Date]>([:])
    static var grace: TimeInterval { 60 }

    init(maxBytes: Int?, maxAge: TimeInterval?) {
        self.maxBytes = maxBytes
        self.maxAge = maxAge
    }

    var isLimited: Bool { maxBytes != nil || maxAge != nil }

    /// Notes that `id` was fetched again now.
    func restored(_ id: Int64, at now: Date = Date()) {
        restored.withLock { restored in
            restored = restored.filter { now.timeIntervalSince($0.value) < Self.grace }
            restored[id] = now
        }
    }

    /// Photos were kept: the budget is looked at again.
    func kept() {
        if isLimited { rings.ring() }
    }

    /// Which of `kept` (the longest kept first, each with its size) go: those older than the age limit, then the
    /// oldest until the rest fit in the budget. Answers them and the bytes that stay.
    func overBudget(_ kept: [(media: RemoteMedia, bytes: Int)], now: Date = Date()) -> (
        evict: [RemoteMedia], staying: Int
    ) {
        var total = kept.reduce(0) { $0 + $1.bytes }
        var evict: [RemoteMedia] = []
        let protected = restored.withLock { restored in
            Set(restored.filter { now.timeIntervalSince($0.value) < Self.grace }.keys)
        }
        for (media, bytes) in kept where !protected.contains(media.id) {
            let tooOld = maxAge.map { now.timeIntervalSince(media.keptAt) > $0 } ?? false
            let over = maxBytes.map { total > $0 } ?? false
            guard tooOld || over else { continue }
            evict.append(media)
            total -= bytes
        }
        return (evict, total)
    }
}

extension Federation {
    /// Removes what is over the budget (``RemoteMediaBudget``).
    func keepWithinBudget() async throws {
        let budget = remoteMedia
        guard budget.isLimited else { return }
        let kept = try await store.keptRemoteMedia()
        let media = core.media
        let sized = try await NIOThreadPool.singleton.runIfActive {
            kept.map { item in (item, item.files.reduce(0) { $0 + (media.size(of: $1) ?? 0) }) }
        }
        let (evict, staying) = budget.overBudget(sized)
        budget.keptBytes.record(staying)
        guard !evict.isEmpty else { return }
        try await store.markRemoteMedia(evict.map(\.id), evicted: true)
        media.remove(evict.flatMap(\.files))
        budget.evicted.increment(by: evict.count)
        logger.info("removed photos of other servers to keep within the budget", metadata: ["count": "\(evict.count)"])
    }

    /// Makes `file` again if it is one of a photo from another server whose files were removed: fetched again from
    /// where it came from (a server suspended since is not asked) and taken through the photo pipeline under the same
    /// names. Answers whether the file is there now.
    public func restoreMedia(_ file: String) async -> Bool {
        guard let media = try? await store.remoteMedia(file: file) else { return false }
        return (try? await remoteMedia.restoring.run(media.id) { await self.refetch(media) }) ?? false
    }

    private func refetch(_ media: RemoteMedia) async -> Bool {
        do {
            guard let url = URL(string: media.source) else { return false }
            let bytes = try await peers.fetchMedia(url, maxBytes: core.maxUploadBytes)
            guard try await core.worker.restore(bytes, as: media.files) else { return false }
            try await store.markRemoteMedia([media.id], evicted: false)
            remoteMedia.restored(media.id)
            remoteMedia.refetched.increment()
            remoteMedia.kept()
            return true
        } catch {
            logger.info(
                "a photo of another server was not fetched again",
                metadata: ["source": "\(media.source)", "error": "\(error)"])
            return false
        }
    }
}

/// Looks at the budget when photos were kept, and every ten minutes (their age counts too).
struct RemoteMediaService<S: Store>: Service {
    let federation: Federation<S>

    func run() async throws {
        let budget = federation.remoteMedia
        guard budget.isLimited else {
            try? await gracefulShutdown()
            return
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(600))
                budget.kept()
            }
        }
        defer { ticker.cancel() }
        budget.kept()
        await budget.rings.answer {
            do {
                try await federation.keepWithinBudget()
            } catch {
                federation.logger.warning("the budget of remote photos was not kept", metadata: ["error": "\(error)"])
            }
        }
    }
}
