import Foundation
import MakestagramAPI
import Testing

/// Posts from a server (or an offline cache) written before a field existed still decode.
@Suite struct PostDecodingTests {
    static let older = """
        {"id":7,"createdAt":"2026-11-20T10:00:00Z","caption":"Cat","author":{"id":1,"username":"ann","displayName":"Ann"},
         "image":{"width":400,"height":300,"full":{"url":"/media/a.jpg","width":400,"height":300},
                  "thumb":{"url":"/media/b.jpg","width":320,"height":320}},
         "likeCount":3,"commentCount":0,"viewerHasLiked":false,"likers":["bob"],"recentComments":[],"version":4}
        """

    @Test func aPostWithoutTheHiddenCountSwitchShowsItsCount() throws {
        let post = try JSONCoding.decoder().decode(Post.self, from: Data(Self.older.utf8))
        #expect(post.likeCount == 3 && !post.likeCountHidden)
        let again = try JSONCoding.decoder().decode(Post.self, from: try JSONCoding.encoder().encode(post))
        #expect(again == post)
    }

    @Test func aHiddenCountIsAbsentNotZero() throws {
        let hidden = Self.older.replacingOccurrences(of: #""likeCount":3,"#, with: #""likeCountHidden":true,"#)
        let post = try JSONCoding.decoder().decode(Post.self, from: Data(hidden.utf8))
        #expect(post.likeCount == nil && post.likeCountHidden)
        #expect(!String(decoding: try JSONCoding.encoder().encode(post), as: UTF8.self).contains("likeCount\""))
    }
}
