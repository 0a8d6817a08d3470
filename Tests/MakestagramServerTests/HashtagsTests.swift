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
