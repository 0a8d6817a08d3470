import Foundation
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
