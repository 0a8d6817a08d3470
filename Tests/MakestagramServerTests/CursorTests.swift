import Foundation
import HummingbirdCore
import MakestagramStore
import Testing

@testable import MakestagramServer

@Suite struct CursorTests {
    @Test(arguments: 0..<40)
    func base64URLMatchesFoundation(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(Cursor.base64URL(bytes) == expected)
    }

    @Test(arguments: [PageRequest.Position.start, .after(0), .after(42), .newerThan(9_007_199_254_740_993)])
    func cursorsRoundTrip(position: PageRequest.Position) throws {
        #expect(try Cursor.decode(Cursor.encode("timeline", position), list: "timeline") == position)
        #expect(throws: APIError.self) { try Cursor.decode(Cursor.encode("likes", position), list: "timeline") }
    }
}

/// Page parameters read from the query string: the same values `URI.queryParameters` gives.
@Suite struct PageQueryTests {
    @Test(arguments: [
        "limit=5", "cursor=abc&limit=7", "limit=1&limit=2", "limit", "limit=", "other=1", "", "&&limit=9&",
        "cursor=a%2Db", "cursor=%FF", "cursor=%E2%82%AC", "cursor=%4", "cursor=%zz", "cursor=%+F", "cursor=%",
        "xlimit=3&limit=4",
        "limit=a=b", "cursor=a+b", "limit=%35",
    ])
    func queryValuesMatchHummingbirdsParameters(query: String) throws {
        let parameters = URI("/api/v1/timeline?\(query)").queryParameters
        for name in ["limit", "cursor"] {
            #expect(Request.queryValue(name, in: query) == parameters.get(name), "\(name) in \(query)")
        }
    }
}
