import Foundation
import MakestagramAPI
import Testing

@testable import MakestagramServer

@Suite struct JSONWriterTests {
    func post(caption: String, avatar: String?, likers: [String], editedAt: Date? = nil) -> Post {
        Post(
            id: 42, createdAt: Date(timeIntervalSince1970: 1_795_000_000), caption: caption,
            author: UserSummary(id: 7, username: "alice", displayName: "Alice \"A\" Ärcher", avatarURL: avatar),
            image: PostImage(
                width: 2688, height: 4032,
                full: ImageVariant(url: "/media/a.jpg", width: 1080, height: 1620, type: "image/jpeg"),
                thumb: ImageVariant(url: "/media/b.jpg", width: 320, height: 320),
                variants: [
                    ImageVariant(url: "/media/c.webp", width: 320, height: 480, type: "image/webp"),
                    ImageVariant(url: "/media/d.webp", width: 640, height: 960, type: "image/webp"),
                ]),
            likeCount: 3, commentCount: likers.count, viewerHasLiked: true, likers: likers,
            recentComments: likers.enumerated().map { index, name in
                Comment(
                    id: Int64(index + 1), postId: 42,
                    author: UserSummary(id: Int64(index + 10), username: name, displayName: caption),
                    text: caption.isEmpty ? "nice" : caption, createdAt: Date(timeIntervalSince1970: 1_795_000_100))
            }, version: 9, editedAt: editedAt)
    }

    @Test func problemsAreWhatJSONEncoderWritesInOneOrder() throws {
        let problem = Problem(
            status: 422, code: "invalid_caption", title: "Invalid caption",
            detail: "A caption may not hold \u{0}, \"quotes\\\" or\nbreaks: Ａ is not A.")
        var writer = JSONWriter()
        writer.problem(problem)
        let written = Data(buffer: writer.buffer)
        #expect(try JSONDecoder().decode(Problem.self, from: written) == problem)
        let text = String(decoding: written, as: UTF8.self)
        let keys = ["type", "title", "status", "detail", "code"].map { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(keys.allSatisfy { $0 != nil })
        #expect(keys.compactMap { $0 } == keys.compactMap { $0 }.sorted())
        #expect(text.hasPrefix(#"{"type":"https://makestagram.dev/problems/invalid_caption","title":"#))
    }

    @Test func likeAnswersAreWhatJSONEncoderWrites() throws {
        for state in [
            LikeState(likeCount: 0, viewerHasLiked: false, likers: [], version: 1),
            LikeState(likeCount: 12, viewerHasLiked: true, likers: ["bob", "carol_3", "d.e"], version: 40),
        ] {
            var writer = JSONWriter()
            writer.likeState(state)
            let written = Data(buffer: writer.buffer)
            #expect(try JSONCoding.decoder().decode(LikeState.self, from: written) == state)
            let ours = try JSONSerialization.jsonObject(with: written) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: try JSONCoding.encoder().encode(state)) as? NSDictionary
            #expect(ours == theirs)
        }
    }

    @Test(arguments: [
        "", "plain", "quotes \" and \\ backslash", "new\nline\ttab\r", "control \u{01}\u{1F}", "emoji 📸 and é",
    ])
    func writesWhatJSONEncoderWrites(caption: String) throws {
        let edited = Date(timeIntervalSince1970: 1_795_000_200)
        for (avatar, likers, editedAt) in [(nil, [], nil), ("/media/c.jpg", ["bob", "carol"], edited)]
            as [(String?, [String], Date?)]
        {
            let page = Page(
                items: [post(caption: caption, avatar: avatar, likers: likers, editedAt: editedAt)],
                nextCursor: "abc", newerCursor: nil)
            var writer = JSONWriter()
            writer.page(page)
            let written = Data(buffer: writer.buffer)
            let decoded = try JSONCoding.decoder().decode(Page<Post>.self, from: written)
            #expect(decoded == page)
            let reference = try JSONCoding.encoder().encode(page)
            let ours = try JSONSerialization.jsonObject(with: written) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: reference) as? NSDictionary
            #expect(ours == theirs)
        }
    }
}
