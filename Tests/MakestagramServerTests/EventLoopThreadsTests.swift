import Testing

@testable import MakestagramServer

/// The cores a process may use, as Linux lists them.
@Suite struct EventLoopThreadsTests {
    @Test(arguments: [("0", 1), ("0-1", 2), ("0,2-3", 3), ("\t0-3,6\n", 5), ("5", 1)])
    func coreListsAreCounted(list: String, count: Int) {
        #expect(EventLoopThreads.coreCount(list: list[...]) == count)
    }

    @Test(arguments: ["", "a", "3-1", "0-", "1-2-3"])
    func unreadableListsCountNothing(list: String) {
        #expect(EventLoopThreads.coreCount(list: list[...]) == nil)
    }

    @Test func thisProcessMayUseAtLeastOneCore() throws {
        #if os(Linux)
            #expect(try #require(EventLoopThreads.allowedCores()) >= 1)
        #endif
    }
}
