import Foundation
import MakestagramAPI
import MakestagramKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SessionTests {
    func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theCredentialFileIsReadableOnlyByItsOwner() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCredentialStore(file: folder.appendingPathComponent("makestagram/credentials.json"))
        let server = URL(string: "http://127.0.0.1:8080")!
        let other = URL(string: "https://photos.example.com")!
        let alice = Credentials(
            server: server, token: "secret-a", user: UserSummary(id: 1, username: "alice", displayName: "Alice"))
        let bob = Credentials(
            server: other, token: "secret-b", user: UserSummary(id: 2, username: "bob", displayName: "Bob"))
        try store.save(alice)
        try store.save(bob)
        #expect(try mode(of: store.file.path) == 0o600)
        #expect(try mode(of: store.file.deletingLastPathComponent().path) == 0o700)
        #expect(try store.load(server: server) == alice)
        #expect(try store.load(server: other) == bob)
        try store.delete(server: server)
        #expect(try store.load(server: server) == nil)
        #expect(try store.load(server: other) == bob)
        #expect(try mode(of: store.file.path) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.file.deletingLastPathComponent().path)
        #expect(leftovers == ["credentials.json"])
    }

    @Test func theDefaultCredentialFileIsInTheUsersConfigFolder() {
        #expect(
            FileCredentialStore().file.path.hasSuffix(".config/makestagram/credentials.json")
                || ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] != nil)
    }

    @Test @MainActor func aSessionIsRememberedUntilLogOut() async throws {
        try await KitServer.run { server in
            let first = try await server.signedUp("alice")
            #expect(first.isLoggedIn && first.user.value?.username == "alice")
            let relaunched = server.app("alice")
            #expect(relaunched.isLoggedIn && relaunched.user.value?.username == "alice")
            #expect(try await relaunched.client.me().username == "alice")
            let token = try #require(relaunched.client.token)
            try await relaunched.logOut()
            #expect(!relaunched.isLoggedIn && relaunched.user.value == nil)
            #expect(!server.app("alice").isLoggedIn)
            let stale = APIClient(server: server.url, token: token)
            await #expect(throws: MakestagramError.self) { try await stale.me() }
            do {
                _ = try await stale.me()
            } catch let error as MakestagramError {
                #expect(error.status == 401 && error.code == "unauthorized")
            }
        }
    }

    @Test @MainActor func refusalsArriveAsTypedProblems() async throws {
        try await KitServer.run { server in
            _ = try await server.signedUp("alice")
            let other = server.app("other")
            do {
                try await other.signUp(username: "alice", password: "correct horse", displayName: "Alice Two")
                Issue.record("a taken username was accepted")
            } catch let error as MakestagramError {
                #expect(error.code == "username_taken" && error.status == 409)
                #expect(error.localizedDescription.contains("taken"))
            }
            do {
                try await other.logIn(username: "alice", password: "wrong password")
                Issue.record("a wrong password was accepted")
            } catch let error as MakestagramError {
                #expect(error.code == "invalid_credentials")
            }
            #expect(!other.isLoggedIn)
            let offline = APIClient(server: URL(string: "http://127.0.0.1:1")!, retryPolicy: .never)
            do {
                _ = try await offline.me()
            } catch let error as MakestagramError {
                #expect(error.isOffline)
            }
        }
    }

    @Test @MainActor func onlyIdempotentRequestsAreRetried() async throws {
        try await KitServer.run { server in
            let transport = SwitchableTransport()
            let app = try await server.signedUp("alice", transport: transport)
            let post = try await app.share("chelsea.jpg")
            transport.set(.offlineFor(count: 1))
            #expect(try await app.client.post(post.id).id == post.id)
            #expect(transport.requests.suffix(2) == ["GET /api/v1/posts/\(post.id)", "GET /api/v1/posts/\(post.id)"])
            transport.set(.offlineFor(count: 1))
            await #expect(throws: MakestagramError.self) { try await app.client.comment(on: post.id, text: "hi") }
            #expect(transport.requests.last == "POST /api/v1/posts/\(post.id)/comments")
            #expect(transport.requests.filter { $0.hasSuffix("/comments") }.count == 1)
            #expect(try await app.client.comments(on: post.id).items.isEmpty, "the refused POST was not sent again")
        }
    }
}
