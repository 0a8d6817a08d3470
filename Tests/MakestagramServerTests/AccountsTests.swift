import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import MakestagramStoreSQLite
import NIOCore
import ServerTestSupport
import Testing

@testable import MakestagramServer

@Suite struct AccountsTests {
    @Test func signUpLogInAndLogOut() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("Alice")
            #expect(alice.profile.username == "alice")
            #expect(alice.token.count >= 43)  // 256 bits in base64url
            let me: UserProfile = try await client.call(.get, "/api/v1/me", as: alice)
            #expect(me.id == alice.profile.id)

            let login: AuthResponse = try await client.call(
                .post, "/api/v1/sessions", json: LogInRequest(username: "ALICE", password: "correct horse"))
            #expect(login.user.id == alice.profile.id && login.token != alice.token)

            let bye = try await client.send(.delete, "/api/v1/sessions/current", as: alice)
            #expect(bye.status == .noContent)
            #expect(try await client.problem(.get, "/api/v1/me", as: alice).code == "unauthorized")
            // The other session still works.
            let other = TestUser(profile: login.user, token: login.token)
            let still: UserProfile = try await client.call(.get, "/api/v1/me", as: other)
            #expect(still.username == "alice")

            // Only a bcrypt hash (cost ≥ 10) is stored, never the password.
            let database = try AppDatabase(path: folder.appendingPathComponent("makestagram.sqlite").path)
            let credentials = try #require(try await SQLiteStore(database: database).credentials(username: "alice"))
            #expect(credentials.passwordHash.hasPrefix("$2b$10$") || credentials.passwordHash.hasPrefix("$2b$1"))
            #expect(!credentials.passwordHash.contains("correct horse"))
        }
    }

    @Test func sessionsAreListedAndEndedOneByOneOrAllByAPasswordChange() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            func logIn(_ password: String = "correct horse", agent: String) async throws -> TestUser {
                let response = try await client.send(
                    .post, "/api/v1/sessions", json: LogInRequest(username: "alice", password: password),
                    headers: [.userAgent: agent])
                let answer = try JSONCoding.decoder().decode(AuthResponse.self, from: Data(buffer: response.body))
                return TestUser(profile: answer.user, token: answer.token)
            }
            let phone = try await logIn(agent: "Phone/1.0")
            let laptop = try await logIn(agent: "Laptop/2.0")
            let listed: Page<SessionInfo> = try await client.call(.get, "/api/v1/me/sessions", as: laptop)
            #expect(listed.items.count == 3)
            #expect(listed.items.filter(\.current).map(\.userAgent) == ["Laptop/2.0"])
            #expect(Set(listed.items.compactMap(\.userAgent)).isSuperset(of: ["Phone/1.0", "Laptop/2.0"]))
            #expect(listed.items.allSatisfy { $0.id.count == 32 && !$0.id.contains(laptop.token) })

            // Ending one session: its token fails at once; nobody ends another's session.
            let phoneID = try #require(listed.items.first { $0.userAgent == "Phone/1.0" }?.id)
            #expect(try await client.problem(.delete, "/api/v1/me/sessions/\(phoneID)", as: bob).status == 404)
            #expect(try await client.send(.delete, "/api/v1/me/sessions/\(phoneID)", as: laptop).status == .noContent)
            #expect(try await client.problem(.get, "/api/v1/me", as: phone).status == 401)
            #expect(try await client.problem(.delete, "/api/v1/me/sessions/\(phoneID)", as: laptop).status == 404)
            #expect(try await client.problem(.delete, "/api/v1/me/sessions/nonsense", as: laptop).status == 404)

            // A password change needs the current password, refuses weak ones, and ends every other session.
            func change(_ current: String, _ new: String, as user: TestUser) async throws -> TestResponse {
                try await client.send(
                    .post, "/api/v1/me/password", as: user,
                    json: ChangePasswordRequest(currentPassword: current, newPassword: new))
            }
            let wrong = try await change("not my password", "a much better secret", as: laptop)
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("currentPassword"))
            #expect(try await change("correct horse", "password", as: laptop).status == .unprocessableContent)
            #expect(try await change("correct horse", "correct horse", as: laptop).status == .unprocessableContent)
            #expect(try await change("correct horse", "short", as: laptop).status == .unprocessableContent)
            let changed = try await change("correct horse", "a much better secret", as: laptop)
            #expect(changed.status == .ok)
            let answer = try JSONCoding.decoder().decode(PasswordChanged.self, from: Data(buffer: changed.body))
            #expect(answer.endedSessions == 1, "the first session (sign-up); the phone had ended already")
            #expect(try await client.problem(.get, "/api/v1/me", as: alice).status == 401)
            let still: UserProfile = try await client.call(.get, "/api/v1/me", as: laptop)
            #expect(still.username == "alice")
            let old = try await client.send(
                .post, "/api/v1/sessions", json: LogInRequest(username: "alice", password: "correct horse"))
            #expect(old.status == .unauthorized)
            _ = try await logIn("a much better secret", agent: "Phone/1.1")
            #expect(try await client.problem(.post, "/api/v1/me/password").status == 401)
        }
    }

    @Test func wrongCurrentPasswordsAreThrottledAsLogInsAre() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<8 {
                let response = try await client.send(
                    .post, "/api/v1/me/password", as: alice,
                    json: ChangePasswordRequest(currentPassword: "guess guess", newPassword: "a much better secret"))
                statuses.append(response.status)
            }
            #expect(statuses.contains(.tooManyRequests), "\(statuses)")
        }
    }

    @Test func signUpRefusesBadInputWithClearProblems() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("bob")
            func signUp(_ username: String, _ password: String, _ name: String = "X") async throws -> Problem {
                try await client.problem(
                    .post, "/api/v1/accounts",
                    json: SignUpRequest(username: username, password: password, displayName: name))
            }
            #expect(try await signUp("BOB", "correct horse").code == "username_taken")
            #expect(try await signUp("ab", "correct horse").detail.contains("username"))
            #expect(try await signUp("no spaces", "correct horse").status == 422)
            #expect(try await signUp(String(repeating: "a", count: 31), "correct horse").status == 422)
            #expect(try await signUp("carol", "short").detail.contains("password"))
            // Longer than bcrypt reads is refused, never silently truncated.
            #expect(try await signUp("carol", String(repeating: "p", count: 73)).detail.contains("72"))
            #expect(try await signUp("carol", "correct horse", "  ").detail.contains("displayName"))
            let malformed = try await client.problem(
                .post, "/api/v1/accounts", headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"username\": "))
            #expect(malformed.status == 400 && malformed.code == "malformed_body")
            let missing = try await client.problem(
                .post, "/api/v1/accounts", headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"username": "carol"}"#))
            #expect(missing.detail.contains("password"))
            let wrongType = try await client.problem(
                .post, "/api/v1/accounts", headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"username": 5, "password": "x", "displayName": "x"}"#))
            #expect(wrongType.detail.contains("username"))
            // 72 bytes exactly is fine.
            _ = try await client.signUp("dave", password: String(repeating: "p", count: 72))
        }
    }

    @Test func wrongPasswordAndUnknownUserGetTheSameAnswerAndAreThrottled() async throws {
        // A first wait longer than any run: with the default second, a slow run's next attempt came after it.
        try await TestServer.run({ $0.loginThrottle.firstDelay = .seconds(600) }) { client, _ in
            _ = try await client.signUp("erin")
            let wrong = try await client.problem(
                .post, "/api/v1/sessions", json: LogInRequest(username: "erin", password: "wrong password"))
            let unknown = try await client.problem(
                .post, "/api/v1/sessions", json: LogInRequest(username: "nobody", password: "wrong password"))
            #expect(wrong == unknown)
            #expect(wrong.status == 401 && wrong.code == "invalid_credentials")
            for _ in 0..<4 {
                _ = try await client.send(
                    .post, "/api/v1/sessions", json: LogInRequest(username: "erin", password: "wrong password"))
            }
            let throttled = try await client.send(
                .post, "/api/v1/sessions", json: LogInRequest(username: "erin", password: "correct horse"))
            #expect(throttled.status == .tooManyRequests)
            #expect(Int(throttled.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test func everythingButSignUpLogInDocsAndMediaNeedsAToken() async throws {
        try await TestServer.run { client, _ in
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/me"), (.get, "/api/v1/timeline"), (.get, "/api/v1/users/x"),
                (.post, "/api/v1/posts"), (.put, "/api/v1/posts/1/like"), (.delete, "/api/v1/sessions/current"),
            ] {
                let problem = try await client.problem(method, path)
                #expect(problem.status == 401, "\(method) \(path)")
            }
            let bogus = try await client.problem(
                .get, "/api/v1/me", headers: [.authorization: "Bearer not-a-real-token"])
            #expect(bogus.code == "unauthorized")
            #expect(try await client.send(.get, "/api/v1/openapi.yaml").status == .ok)
            #expect(try await client.send(.get, "/healthz").status == .ok)
        }
    }

    @Test func bearerTokensAreReadFromTheirHeader() {
        func token(_ value: String) -> String? {
            BearerAuthMiddleware<SQLiteStore>.bearerToken([.authorization: value])
        }
        #expect(token("Bearer abc") == "abc")
        #expect(token("bearer  abc ") == "abc")
        #expect(token("BEARER abc") == "abc")
        #expect(token("Basic abc") == nil)
        #expect(token("Bearerabc") == nil)
        #expect(token("Bearer ") == nil)
        #expect(token("Bearer    ") == nil)
        #expect(token("Bearer " + String(repeating: "a", count: 513)) == nil)
        #expect(BearerAuthMiddleware<SQLiteStore>.bearerToken([:]) == nil)
    }
}
