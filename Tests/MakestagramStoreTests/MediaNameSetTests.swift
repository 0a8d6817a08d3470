import Foundation
import MakestagramAPI
import Testing

@testable import MakestagramStore
@testable import MakestagramStoreSQLite

struct MediaNameSetTests {
    let jpeg = "0123456789abcdef0123456789abcdef.jpg"
    let webp = "00000000000000000000000000000001.webp"

    @Test func namesTheServerGivesAreHeldAsNumbersAndComeBackTheSame() {
        var set = MediaNameSet()
        set.insert(jpeg)
        set.insert("640x427:\(webp)")  // a variant item adds its file
        set.insert("avatar.jpg")  // any other name is kept as it is
        #expect(set.count == 3)
        #expect(set.names == [jpeg, webp, "avatar.jpg"])
        #expect(set.contains(jpeg) && set.contains(webp) && set.contains("avatar.jpg"))
    }

    @Test func lookalikesAreOtherNames() {
        let set = MediaNameSet([jpeg, webp])
        // The same digits with the other extension, in capitals, one digit short or long, or with a prefix.
        for name in [
            "0123456789abcdef0123456789abcdef.webp", "0123456789ABCDEF0123456789ABCDEF.jpg",
            "0123456789abcdef0123456789abcde.jpg", "0123456789abcdef0123456789abcdef0.jpg",
            "00000000000000000000000000000001.jpg", "x0000000000000000000000000000001.webp", ".tmp-\(jpeg)", "",
        ] {
            #expect(!set.contains(name), "\(name)")
        }
        var lookalikes = MediaNameSet()
        lookalikes.insert("0123456789ABCDEF0123456789ABCDEF.jpg")
        #expect(!lookalikes.contains(jpeg))
        #expect(lookalikes.names == ["0123456789ABCDEF0123456789ABCDEF.jpg"])
    }

    @Test func theSQLiteStoreReadsEveryNameWhateverItsSliceSize() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SQLiteStore(database: try AppDatabase(path: folder.appending(path: "db.sqlite").path))
        var expected: Set<String> = []
        for index in 0..<5 {
            let user = try await store.user("user\(index)")
            let post = try await store.photoPost(by: user)
            let variant = String(format: "%032x.webp", index)
            #expect(
                try await store.setVariants(
                    postID: post, variants: [StoredVariant(fileName: variant, width: 320, height: 240)]))
            expected.insert(variant)
            if index.isMultiple(of: 2) {
                let avatar = AvatarFiles(small: "s\(index).jpg", large: "l\(index).jpg")
                _ = try await store.setAvatar(userID: user, files: avatar)
                expected.formUnion([avatar.small, avatar.large])
            }
        }
        let whole = try await store.referencedMediaFiles().names
        #expect(whole.isSuperset(of: expected) && whole.count == expected.count + 10)  // and each post's two files
        for size in [1, 2, 3, 100] {
            #expect(try await store.referencedMediaFiles(sliceSize: size).names == whole, "slices of \(size)")
        }
    }
}
