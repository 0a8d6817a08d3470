import Foundation
import Logging
import MakestagramAPI
import MakestagramStore
import PostgresNIO
import PostgresTestSupport
import Testing

@testable import MakestagramStorePostgres

/// The change stream reads flat records itself and leaves the rest to `JSONDecoder`: whatever it reads must be
/// exactly what `JSONDecoder` reads, and what it does not accept must go to `JSONDecoder`.
@Suite struct FlatJSONTests {
    static let names = [
        "plain", "O\"Brien", "back\\slash", "slash/ed", "new\nline", "tab\tand\r", "nul\u{0}byte", "\u{1F}unit",
        "é and ü", "😀 emoji", "𝒳 math", "\u{202E}override", "", "  spaced  ", "\u{FEFF}bom", "quote\" \\\" end",
    ]

    func decoded(_ payload: String) -> ChangeRecord? {
        try? JSONDecoder().decode(ChangeRecord.self, from: Data(payload.utf8))
    }

    func flatRecords() -> [ChangeRecord] {
        let user = UserSummary(id: 7, username: "ann", displayName: "Ann", avatarURL: nil)
        var records: [ChangeRecord] = Self.names.map { name in
            ChangeRecord(
                .likeChanged(
                    LikeChange(
                        postID: 12, actor: UserSummary(id: 3, username: "u", displayName: name, avatarURL: nil),
                        liked: true, likeCount: 4, likers: [name, "bob"], version: 9_007_199_254_740_993,
                        authorID: 2, countHidden: true)))
        }
        records += [
            ChangeRecord(.activityChanged(user: 5, unreadCount: 0)),
            ChangeRecord(.followChanged(follower: 1, followee: 2, following: false)),
            ChangeRecord(.sessionEnded(tokenHash: Array(repeating: 0xAB, count: 32))),
            ChangeRecord(
                .captionEdited(
                    postID: 1, caption: "a \"b\"\n#c", editedAt: Date(timeIntervalSince1970: 1.5), version: 2)),
            ChangeRecord(
                .captionEdited(postID: 1, caption: "", editedAt: Date(timeIntervalSince1970: 1e9), version: 2)),
            ChangeRecord(.profileChanged(user: user)),
            ChangeRecord(.commentDeleted(commentID: 4, postID: 5, commentCount: 0, version: -1, author: 6)),
            ChangeRecord(.likeCountHiddenChanged(postID: 1, authorID: 2, hidden: true, likeCount: 3, version: 4)),
            ChangeRecord(.postDeleted(postID: 1, version: 2, audience: []), author: 3),
            ChangeRecord(.imageChanged(postID: 1, version: 2)),
            ChangeRecord(.userRemoved(user: 1, username: "ana", status: .suspended)),
            ChangeRecord(.userRestored(user: 1, username: "ana")),
            ChangeRecord(.domainBlockChanged(domain: "spam.example", severity: .suspend)),
            ChangeRecord(.domainBlockChanged(domain: "spam.example", severity: nil)),
            ChangeRecord(.reportForwarded(postID: 3, reason: "a \"scam\"\nreally")),
        ]
        return records
    }

    @Test func everyFlatRecordReadsAsJSONDecoderReadsIt() throws {
        for record in flatRecords() {
            let payload = try record.json()
            let flat = ChangeRecord(flatJSON: payload)
            #expect(flat != nil, "read by the fast path: \(payload)")
            #expect(flat == decoded(payload))
            #expect(flat == record)
        }
    }

    @Test func nestedRecordsAreLeftToJSONDecoder() throws {
        let author = UserSummary(id: 1, username: "ann", displayName: "Ann", avatarURL: nil)
        let comment = Comment(id: 1, postId: 2, author: author, text: "hi", createdAt: Date(timeIntervalSince1970: 0))
        let payload = try ChangeRecord(.commentCreated(comment: comment, commentCount: 1, version: 2)).json()
        #expect(ChangeRecord(flatJSON: payload) == nil)
        #expect(decoded(payload) != nil)
        #expect(ChangeRecord(.commentCreated(comment: comment, commentCount: 1, version: 2)).flatJSON == nil)
    }

    @Test func whatJSONDecoderRefusesIsNeverReadAndWhatIsReadAgrees() {
        let payloads = [
            #"{"kind":"like","post":1}"#, #"{ "kind" : "like" , "post" : 1 }"#, #"{"post":1}"#, #"{}"#, "",
            #"{"kind":"like","post":1"#, #"{"kind":"like","post":01}"#, #"{"kind":"like","post":1.5}"#,
            #"{"kind":"like","post":"1"}"#, #"{"kind":"like","post":-0}"#, #"{"kind":"like","post":1e3}"#,
            #"{"kind":"like","post":99999999999999999999}"#, #"{"kind":"nope"}"#, #"{"kind":"like",}"#,
            #"{"kind":"like","username":"a\qb"}"#, #"{"kind":"like","username":"\ud800"}"#,
            #"{"kind":"like","username":"\udc00\ud800"}"#, #"{"kind":"like","username":"\ud83d\ude00"}"#,
            #"{"kind":"like","username":"\u00E9\u0000"}"#, "{\"kind\":\"like\",\"username\":\"a\u{1}b\"}",
            #"{"kind":"like","on":tru}"#, #"{"kind":"like","on":null,"extra":[1]}"#, #"{"kind":"like","extra":"x"}"#,
            #"{"kind":"like"} x"#, #"{"kind":"like"}  "#, #"{"kind":"captionEdited","at":-1.25e-3}"#,
            #"{"kind":"like","count":-}"#, #"{"kind":"like","count":1.}"#, #"{"kind":"like","kind":"follow"}"#,
            #"{"kind":"like","username":"\/"}"#, #"{"kind":"like","username":"\u12"}"#, #"["kind"]"#,
        ]
        for payload in payloads {
            let expected = decoded(payload)
            let flat = ChangeRecord(flatJSON: payload)
            if expected == nil { #expect(flat == nil, "read what JSONDecoder refuses: \(payload)") }
            if let flat { #expect(flat == expected, "\(payload)") }
        }
        #expect(ChangeRecord(flatJSON: #"{"kind":"like","username":"\ud83d\ude00"}"#)?.username == "😀")
    }

    @Test func randomNamesReadTheSame() throws {
        var random = SeededGenerator(seed: 11)
        let alphabet: [Unicode.Scalar] =
            Array("ab \"\\/\u{0}\u{1}\u{1F}\u{7F}\u{80}é😀\u{FFFF}\u{10FFFF}\n".unicodeScalars)
        for _ in 0..<500 {
            var name = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0..<12, using: &random) {
                name.append(alphabet.randomElement(using: &random)!)
            }
            var record = ChangeRecord(kind: .profileChanged)
            record.actor = Int64.random(in: .min ... .max, using: &random)
            record.username = String(name)
            record.displayName = String(name)
            let payload = try record.json()
            #expect(ChangeRecord(flatJSON: payload) == record, "\(payload)")
            #expect(decoded(payload) == record, "\(payload)")
        }
    }

    /// The fast writer's output is what `JSONEncoder` writes, as far as any reader can tell, numbers included.
    @Test func theFastWriterWritesWhatJSONEncoderWrites() throws {
        var random = SeededGenerator(seed: 12)
        var records = flatRecords()
        for _ in 0..<500 {
            var record = ChangeRecord(kind: .captionEdited)
            record.post = Int64.random(in: .min ... .max, using: &random)
            record.count = Int.random(in: .min ... .max, using: &random)
            record.hidden = Bool.random(using: &random)
            record.at = [
                Double.random(in: 0..<2e9, using: &random), Double.random(in: -1e-300..<1e-300, using: &random),
                Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &random)),
            ].randomElement(using: &random)
            records.append(record)
        }
        for record in records {
            let fast = try #require(record.flatJSON)
            #expect(try record.json() == fast)
            let encoded = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
            #expect(decoded(fast) == decoded(encoded), "\(fast) against \(encoded)")
            #expect(decoded(fast) == record, "\(fast)")
            #expect(ChangeRecord(flatJSON: fast) == record, "\(fast)")
        }
        var infinite = ChangeRecord(kind: .captionEdited)
        infinite.at = .infinity
        #expect(infinite.flatJSON == nil)
    }

    /// The payloads PostgreSQL itself builds (`json_build_object`, as the statement that logs likes does), with names
    /// JSON must escape.
    @Test(.enabled(if: TestPostgres.isAvailable, "needs MAKESTAGRAM_TEST_POSTGRES"))
    func payloadsPostgreSQLBuildsAreReadByTheFastPath() async throws {
        try await StoreFactory.postgres.with { made in
            let store = try #require(made.store as? PostgresStore)
            for name in Self.names where !name.contains("\u{0}") {
                let payload = try await store.read { connection in
                    try await connection.query(
                        """
                        SELECT json_build_object('kind', 'like', 'post', 12::bigint, 'actor', 3::bigint,
                          'username', \(name), 'displayName', \(name), 'avatarFile', NULL::text, 'on', true,
                          'count', 4::bigint, 'likers', \(name), 'version', 9007199254740993::bigint,
                          'owner', 2::bigint, 'hidden', false)::text
                        """, logger: Logger(label: "test")
                    ).collect()[0].decode(String.self)
                }
                let flat = ChangeRecord(flatJSON: payload)
                #expect(flat != nil, "\(payload)")
                #expect(flat == decoded(payload))
                #expect(flat?.username == name && flat?.likers == name && flat?.version == 9_007_199_254_740_993)
            }
        }
    }
}
