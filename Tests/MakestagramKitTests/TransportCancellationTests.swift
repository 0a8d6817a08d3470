import Foundation
import MakestagramKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct TransportCancellationTests {
    /// A screen that goes away cancels its requests at any moment: before they start, while they travel and while
    /// they complete or fail. None may hang, and the transport must go on answering afterwards. (URLSession's own
    /// `data(for:)` on Linux hangs here: swift-corelibs-foundation issue 5412.)
    @Test func requestsCancelledAtAnyMomentNeverHang() async throws {
        try await KitServer.run { server in
            let transport = URLSessionTransport()
            let request = URLRequest(url: server.url.appendingPathComponent("healthz"))
            // A port nobody listens on: the connection fails at once, on URLSession's queue.
            let refused = URLRequest(url: URL(string: "http://127.0.0.1:\(try closedPort())/")!)
            for round in 0..<40 {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<100 {
                        let target = index.isMultiple(of: 2) ? request : refused
                        group.addTask { _ = try? await transport.send(target, progress: nil) }
                    }
                    try? await Task.sleep(for: .microseconds(round * 50))
                    group.cancelAll()
                }
            }
            let (_, response) = try await transport.send(request, progress: nil)
            #expect(response.statusCode == 200)
        }
    }
}

/// A loopback port that was free a moment ago and has no listener.
private func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: address.sin_port))
}
