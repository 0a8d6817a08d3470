import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing

@testable import MakestagramServer

/// Text is refused, never cut or silently changed: NUL and other control characters, lookalike usernames, reserved
/// names, direction overrides in names and common passwords.
@Suite struct TextInputTests {
    func signUp(
        _ client: any TestClientProtocol, _ username: String, _ password: String = "correct horse", name: String = "X"
    ) async throws -> TestResponse {
        try await client.send(
            .post, "/api/v1/accounts", json: SignUpRequest(username: username, password: password, displayName: name))
    }

    func logIn(_ client: any TestClientProtocol, _ username: String, _ password: String) async throws -> TestResponse {
        try await client.send(.post, "/api/v1/sessions", json: LogInRequest(username: username, password: password))
    }

    @Test func passwordsWithNULsAreRefusedAndNeverMatchATruncatedPassword() async throws {
        try await TestServer.run { client, _ in
            let nuls = try await signUp(client, "nul", String(repeating: "\u{0}", count: 8))
            #expect(nuls.status == .unprocessableContent)
            #expect(String(buffer: nuls.body).contains("U+0000"))
            _ = try await client.signUp("kim", password: "abcdefgh-kept")
            // A C library would stop at the NUL and compare "abcdefgh" alone. At log-in it is simply wrong.
            let truncated = try await logIn(client, "kim", "abcdefgh\u{0}secret")
            #expect(truncated.status == .unauthorized)
            #expect(try await logIn(client, "kim", "abcdefgh").status == .unauthorized)
            #expect(try await logIn(client, "kim", "abcdefgh-kept").status == .ok)
            let bell = try await signUp(client, "bell", "correct\u{7}horse")
            #expect(bell.status == .unprocessableContent)
        }
    }

    @Test func captionsCommentsNamesAndReasonsWithControlCharactersAreRefusedWhole() async throws {
        try await TestServer.run { client, _ in
            let ann = try await client.signUp("ann")
            let ben = try await client.signUp("ben")
            #expect(try await signUp(client, "cat", name: "Cat\u{0}Woman").status == .unprocessableContent)
            let upload = try await client.upload("chelsea.jpg", caption: "cut\u{0}here", as: ann)
            #expect(upload.status == .unprocessableContent)
            #expect(String(buffer: upload.body).contains("caption"))
            let timeline: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: ann)
            #expect(timeline.items.isEmpty)

            // Line breaks and tabs are text; CR LF becomes LF.
            let post = try await client.post("chelsea.jpg", caption: "two\r\nlines\tand a tab", as: ann)
            #expect(post.caption == "two\nlines\tand a tab")
            for text in ["nul\u{0}after", "escape\u{1B}[31m", "c1\u{85}control", "\u{7F}"] {
                let problem = try await client.problem(
                    .post, "/api/v1/posts/\(post.id)/comments", as: ben, json: NewCommentRequest(text: text))
                #expect(
                    problem.status == 422 && problem.detail.contains("control character"), "\(text.debugDescription)")
            }
            let comments: Page<MakestagramAPI.Comment> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/comments", as: ann)
            #expect(comments.items.isEmpty)
            let reason = try await client.problem(
                .post, "/api/v1/posts/\(post.id)/reports", as: ben, json: ReportRequest(reason: "spam\u{0}"))
            #expect(reason.status == 422)
        }
    }

    @Test func usernamesAreNormalisedSoLookalikesCollideAndReservedNamesAreRefused() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("kate")
            // KELVIN SIGN + "ate" is "kate" after NFKC and case folding.
            let kelvin = try await signUp(client, "\u{212A}ate")
            #expect(kelvin.status == .conflict)
            #expect(try await logIn(client, "\u{212A}ATE", "correct horse").status == .ok)
            let profile: UserProfile = try await client.call(
                .get, "/api/v1/users/%E2%84%AAate", as: try await client.signUp("viewer"))
            #expect(profile.username == "kate")
            // Other scripts' lookalikes are not letters of the handle alphabet.
            #expect(try await signUp(client, "k\u{0430}te").status == .unprocessableContent)  // Cyrillic a
            for reserved in ["admin", "API", "root", "login", "Support"] {
                let answer = try await signUp(client, reserved)
                #expect(answer.status == .unprocessableContent, "\(reserved)")
                #expect(String(buffer: answer.body).contains("reserved"))
            }
        }
    }

    @Test func displayNamesRefuseDirectionOverrides() async throws {
        try await TestServer.run { client, _ in
            for name in ["evil\u{202E}gpj.exe", "\u{2067}isolate", "mark\u{200F}"] {
                let answer = try await signUp(client, "dora", name: name)
                #expect(answer.status == .unprocessableContent, "\(name.debugDescription)")
                #expect(String(buffer: answer.body).contains("direction"))
            }
            // Right-to-left text itself is welcome.
            #expect(try await signUp(client, "dora", name: "דורה").status == .created)
        }
    }

    @Test func commonPasswordsAndTheUsernameAreRefusedWithAReason() async throws {
        try await TestServer.run { client, _ in
            for password in ["12345678", "password", "Password", "iloveyou", "qwertyuiop"] {
                let answer = try await signUp(client, "eve", password)
                #expect(answer.status == .unprocessableContent, "\(password)")
                #expect(String(buffer: answer.body).contains("common"))
            }
            #expect(try await signUp(client, "everest", "everest1").status == .unprocessableContent)
            #expect(try await signUp(client, "eve", "violet tulip meadow").status == .created)
        }
    }

    @Test func textRulesNameTheOffendingCharacter() {
        #expect(TextRules.controlCharacter(in: "ok") == nil)
        #expect(TextRules.controlCharacter(in: "a\nb\tc", multiline: true) == nil)
        #expect(TextRules.controlCharacter(in: "a\nb") == "\n")
        #expect(TextRules.controlCharacter(in: "\u{9F}") == "\u{9F}")
        #expect(TextRules.bidiControl(in: "abc\u{202D}") == "\u{202D}")
        #expect(TextRules.normalizedUsername(" \u{FF2B}ATE ") == "kate")  // fullwidth K
        #expect(TextRules.normalizedLineBreaks("a\r\nb\rc") == "a\nb\nc")
    }
}
