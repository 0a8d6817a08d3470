import MakestagramAPI
import Testing

@Suite struct HashtagsTests {
    @Test func tagsAreWhatFollowsAHashAtAWordsStart() {
        #expect(Hashtags.of("Dawn #Golden_Hour, #sea. #sea") == ["golden_hour", "sea"])
        #expect(Hashtags.of("not#this &#38; ##double # alone #é_2") == ["é_2"])
        #expect(Hashtags.of("(#paren) \n#line") == ["paren", "line"])
        #expect(Hashtags.of("#" + String(repeating: "a", count: 120)) == [String(repeating: "a", count: 100)])
        #expect(Hashtags.of((1...40).map { "#t\($0)" }.joined(separator: " ")).count == Hashtags.maxPerPost)
        #expect(Hashtags.isValid("Golden_Hour") && Hashtags.isValid("été"))
        #expect(
            !Hashtags.isValid("") && !Hashtags.isValid("a b") && !Hashtags.isValid("#a") && !Hashtags.isValid("a-b"))
    }
}

@Suite struct MentionsTests {
    @Test func mentionsNameUsernamesHere() {
        #expect(Mentions.of("hi @alice and @bob_2. and @alice again") == ["alice", "bob_2"])
        #expect(Mentions.of("mail bob@example.com, @@x, é@carol, @ab") == [])
    }

    /// `@bob@host` is someone elsewhere: never the local bob, and given by ``Mentions/remote(of:)``.
    @Test func aHandleWithAHostNamesSomeoneElsewhere() {
        let text = "hi @bob@Peer.Test, @carol@127.0.0.1:8080. and @bob (@dan@x.social)"
        #expect(Mentions.of(text) == ["bob"])
        #expect(Mentions.remote(of: text) == ["bob@peer.test", "carol@127.0.0.1:8080", "dan@x.social"])
        #expect(Mentions.remote(of: "@bob@localhost @eve@ @x@.") == [])
        #expect(Mentions.of("@bob@localhost") == [])
    }
}
