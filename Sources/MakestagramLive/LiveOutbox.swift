import NIOCore

/// The messages waiting to be written to one live connection, in order, with like states coalesced per post.
///
/// A like or unlike replaces any older like state of the same post still waiting (only the newest state matters);
/// the newer message goes to the back so that a post's messages stay in version order. Comments and timeline posts
/// are never coalesced: each carries content the client has not seen. Not thread-safe; its owner locks.
struct LiveOutbox {
    private var entries: [ByteBuffer?] = []
    /// Where each post's waiting like state sits in `entries`.
    private var likeSlots: [Int64: Int] = [:]
    /// Entries that are not tombstones.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Queues a message that is never coalesced.
    mutating func append(_ frame: ByteBuffer) {
        entries.append(frame)
        count += 1
    }

    /// Queues a post's like state, dropping the older one still waiting.
    mutating func appendLikeState(_ frame: ByteBuffer, postID: Int64) {
        if let slot = likeSlots[postID] {
            entries[slot] = nil
            count -= 1
        }
        likeSlots[postID] = entries.count
        append(frame)
    }

    /// Drops every waiting message about `postID` that coalescing may replace (its like state).
    mutating func dropLikeState(postID: Int64) {
        guard let slot = likeSlots.removeValue(forKey: postID) else { return }
        entries[slot] = nil
        count -= 1
    }

    /// Everything waiting, oldest first; the outbox is empty afterwards.
    mutating func takeAll() -> [ByteBuffer] {
        let frames = entries.compactMap { $0 }
        entries.removeAll(keepingCapacity: entries.count <= 64)
        likeSlots.removeAll(keepingCapacity: false)
        count = 0
        return frames
    }

    /// Forgets everything waiting (the connection is closing).
    mutating func removeAll() {
        entries = []
        likeSlots = [:]
        count = 0
    }
}
