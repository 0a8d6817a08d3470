import Foundation
import Hummingbird
import HummingbirdTesting
import MakestagramFederation
import Testing

/// Who other servers' URLs may lead this server to: the address checked is the address connected to.
@Suite struct PeerClientTests {
    /// A policy for which only 127.0.0.1 is public, and names resolve as `names` says (the system knows none of
    /// them: `.invalid` never resolves).
    static func policy(_ names: [String: [UInt8]]) -> PeerPolicy {
        PeerPolicy(resolver: { host in names[host].map { [$0] } ?? [] }, permits: { $0 == [127, 0, 0, 1] })
    }

    static func app() -> some ApplicationProtocol {
        let router = Router()
        router.get("document") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"reached":true}"#)))
        }
        router.get("elsewhere") { request, _ -> Response in
            Response(
                status: .found, headers: [.location: request.uri.queryParameters["to"].map(String.init) ?? "/"])
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// The name is resolved once, by the check, and the connection goes to the address it checked: the system's
    /// resolver, which does not know the name, is never asked.
    @Test func aRequestConnectsToTheAddressCheckedAndNoOther() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            let peers = PeerClient(
                policy: Self.policy(["pinned.invalid": [127, 0, 0, 1], "inside.invalid": [10, 0, 0, 7]]))
            let document = try await peers.fetchJSON(URL(string: "http://pinned.invalid:\(port)/document")!)
            #expect(document["reached"] as? Bool == true)

            // A name that resolves into a private network is refused before any connection, and so is a redirect
            // there or to an address given as such.
            for url in [
                "http://inside.invalid:\(port)/document",
                "http://pinned.invalid:\(port)/elsewhere?to=http://inside.invalid:\(port)/document",
                "http://pinned.invalid:\(port)/elsewhere?to=http://10.0.0.7:\(port)/document",
            ] {
                await #expect(throws: PeerClient.Failure.self, "\(url)") {
                    _ = try await peers.fetchJSON(URL(string: url)!)
                }
            }
            try await peers.shutdown()
        }
    }
}
