import MakestagramAPI
import Testing

@testable import MakestagramStore
@testable import MakestagramStoreSQLite

struct SessionCacheTests {
    let alice = SessionIdentity(user: UserSummary(id: 1, username: "alice", displayName: "Alice", avatarURL: nil))

    func key(_ byte: UInt8) -> SessionKey {
        SessionKey([UInt8](repeating: byte, count: 32))!
    }

    @Test func aLookupThatRacedALogOutDoesNotBringTheSessionBack() {
        let cache = SessionCache(capacity: 100)
        // A request misses the cache and reads the session from the database...
        let (missed, generation) = cache.lookup(key(1))
        #expect(missed == nil)
        // ...while the session ends and its removal runs...
        cache.remove([key(1)])
        // ...so the stale read is not remembered.
        cache.insert(alice, for: key(1), generation: generation)
        #expect(cache.lookup(key(1)).value == nil)
        // A lookup after the removal is.
        cache.insert(alice, for: key(1), generation: cache.lookup(key(1)).generation)
        #expect(cache.lookup(key(1)).value == alice)
    }

    @Test func keysAreWholeHashes() {
        #expect(SessionKey([1, 2, 3]) == nil)
        #expect(key(1) != key(2))
        var other = [UInt8](repeating: 1, count: 32)
        other[31] = 2  // differs only in the last word, which the hash does not mix in
        #expect(SessionKey(other) != key(1))
    }

    @Test func aFullCacheStartsOver() {
        let cache = SessionCache(capacity: 2)
        for byte: UInt8 in 1...3 {
            cache.insert(alice, for: key(byte), generation: cache.lookup(key(byte)).generation)
        }
        #expect(cache.lookup(key(3)).value == alice)
        #expect(cache.lookup(key(1)).value == nil)
    }
}

struct LikerNamesTests {
    @Test func previewsSplitIntoNames() {
        #expect(likerNames("") == [])
        #expect(likerNames("alice") == ["alice"])
        #expect(likerNames("alice bob carol_3") == ["alice", "bob", "carol_3"])
        #expect(likerNames(" alice  bob ") == ["alice", "bob"])
    }
}
