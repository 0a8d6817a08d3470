import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import MakestagramCore
import MakestagramLive
import NIOCore
import ServerTestSupport
import Testing

@testable import MakestagramServer

/// Rate limits, the log-in throttle, client addresses behind a proxy, and honest answers for wrong methods and
/// media types.
@Suite struct LimitsTests {
    @Test func eachActionHasItsOwnLimitAnsweredWith429AndRetryAfter() async throws {
        try await TestServer.run({
            $0.rateLimits.comments = RateLimit(3, per: .seconds(60))
            $0.rateLimits.likes = RateLimit(2, per: .seconds(60))
        }) { client, _ in
            let ann = try await client.signUp("ann")
            let ben = try await client.signUp("ben")
            let post = try await client.post("chelsea.jpg", as: ann)
            for index in 1...3 {
                let _: MakestagramAPI.Comment = try await client.call(
                    .post, "/api/v1/posts/\(post.id)/comments", as: ben, json: NewCommentRequest(text: "\(index)"),
                    expect: .created)
            }
            let refused = try await client.send(
                .post, "/api/v1/posts/\(post.id)/comments", as: ben, json: NewCommentRequest(text: "4"))
            #expect(refused.status == .tooManyRequests)
            let retry = Int(refused.headers[.retryAfter] ?? "") ?? 0
            #expect((1...20).contains(retry))
            let problem = try JSONDecoder().decode(Problem.self, from: Data(buffer: refused.body))
            #expect(problem.code == "rate_limited" && problem.detail.contains("comments"))
            // Nothing was stored, and others are not limited by ben's use.
            let count: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: ann)
            #expect(count.commentCount == 3)
            let _: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: ann, json: NewCommentRequest(text: "mine"),
                expect: .created)
            // Likes count apart from comments.
            for liked in [true, false] {
                let _: LikeState = try await client.call(
                    liked ? .put : .delete, "/api/v1/posts/\(post.id)/like", as: ben)
            }
            #expect(try await client.send(.put, "/api/v1/posts/\(post.id)/like", as: ben).status == .tooManyRequests)
        }
    }

    @Test func signUpsAreCountedPerAddressBehindATrustedProxyOnly() async throws {
        try await TestServer.run(
            {
                $0.rateLimits.signUps = RateLimit(2, per: .seconds(3600))
                $0.trustedProxies = TrustedProxies(parsing: "127.0.0.1")!
            }, setup: .live
        ) { client, _ in
            func signUp(_ name: String, from address: String) async throws -> HTTPResponse.Status {
                try await client.send(
                    .post, "/api/v1/accounts",
                    json: SignUpRequest(username: name, password: "correct horse", displayName: name),
                    headers: [.xForwardedFor: "198.51.100.7, \(address)"]
                ).status
            }
            let statuses = [
                try await signUp("one", from: "203.0.113.1"), try await signUp("two", from: "203.0.113.1"),
                try await signUp("three", from: "203.0.113.1"),
                // Another client behind the same proxy has its own allowance; the hop the proxy did not add is not
                // believed.
                try await signUp("four", from: "203.0.113.2"),
            ]
            #expect(statuses == [.created, .created, .tooManyRequests, .created])
        }
        try await TestServer.run({ $0.rateLimits.signUps = RateLimit(2, per: .seconds(3600)) }, setup: .live) {
            client, _ in
            // Without a trusted proxy the header is anyone's to write, and ignored.
            for (index, address) in ["203.0.113.1", "203.0.113.2", "203.0.113.3"].enumerated() {
                let status = try await client.send(
                    .post, "/api/v1/accounts",
                    json: SignUpRequest(username: "user\(index)", password: "correct horse", displayName: "U"),
                    headers: [.xForwardedFor: address]
                ).status
                #expect(status == (index < 2 ? .created : .tooManyRequests))
            }
        }
    }

    @Test func anAttackerCannotLockTheOwnerOut() async throws {
        try await TestServer.run({ $0.trustedProxies = TrustedProxies(parsing: "127.0.0.1")! }, setup: .live) {
            client, _ in
            _ = try await client.signUp("olivia")
            func logIn(_ password: String, from address: String) async throws -> TestResponse {
                try await client.send(
                    .post, "/api/v1/sessions", json: LogInRequest(username: "olivia", password: password),
                    headers: [.xForwardedFor: address])
            }
            var refused = 0
            for attempt in 0..<50 {
                // Long wrong passwords (they used to cost the attacker nothing) and short ones.
                let password = attempt.isMultiple(of: 2) ? String(repeating: "x", count: 72) : "wrong password"
                let answer = try await logIn(password, from: "203.0.113.66")
                #expect(answer.status == .unauthorized || answer.status == .tooManyRequests)
                if answer.status == .tooManyRequests { refused += 1 }
            }
            #expect(refused > 40, "the attacker's address should soon wait between guesses")
            // The owner, from their own address, at once.
            #expect(try await logIn("correct horse", from: "198.51.100.1").status == .ok)
        }
    }

    @Test func aFloodOfLogInsWithUnknownNamesIsTurnedAwayBeforeHashing() async throws {
        try await TestServer.run(
            {
                $0.trustedProxies = TrustedProxies(parsing: "127.0.0.1")!
                // A small allowance keeps the bcrypt work of this test small (debug builds hash slowly).
                $0.loginThrottle.addressFailures = 2
            }, setup: .live
        ) {
            client, _ in
            _ = try await client.signUp("olivia")
            let start = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        try await client.send(
                            .post, "/api/v1/sessions",
                            json: LogInRequest(username: "ghost\(index)", password: "guess123"),
                            headers: [.xForwardedFor: "203.0.113.9"]
                        ).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            // An attempt under way counts as a failure: the address's allowance reaches bcrypt, then one attempt
            // after each doubling delay (1 s, 2 s, 4 s, …) — how many of those fit depends on how long the allowed
            // ones took to hash (slow in debug builds on a busy machine).
            let elapsed = Double((ContinuousClock.now - start).components.seconds) + 1
            let delayed = Int(log2(elapsed)) + 1
            #expect(statuses.count { $0 == .unauthorized } <= 2 + delayed)
            #expect(statuses.count { $0 == .tooManyRequests } >= 28 - delayed)
            #expect(statuses.allSatisfy { $0 == .tooManyRequests || $0 == .unauthorized })
            let owner = try await client.send(
                .post, "/api/v1/sessions", json: LogInRequest(username: "olivia", password: "correct horse"),
                headers: [.xForwardedFor: "198.51.100.1"])
            #expect(owner.status == .ok)
        }
    }

    /// A password nobody's can be (too long, too short) is just wrong, said before any hashing and not counted.
    @Test func passwordsOfAShapeNobodyHasNeverCountAsFailures() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("olivia")
            for index in 0..<20 {
                let answer = try await client.send(
                    .post, "/api/v1/sessions",
                    json: LogInRequest(
                        username: "olivia", password: String(repeating: "p", count: index.isMultiple(of: 2) ? 73 : 3)))
                #expect(answer.status == .unauthorized)
            }
            let ok = try await client.send(
                .post, "/api/v1/sessions", json: LogInRequest(username: "olivia", password: "correct horse"))
            #expect(ok.status == .ok)
        }
    }

    @Test func theThrottleDelaysGrowPerAccountAndAddressAndPerAddress() {
        let throttle = LoginThrottle()
        let start = ContinuousClock.now
        func fail(_ user: String, _ address: String, at time: ContinuousClock.Instant) -> Duration? {
            if let wait = throttle.begin(username: user, address: address, now: time) { return wait }
            throttle.finish(username: user, address: address, succeeded: false, now: time)
            return nil
        }
        for _ in 0..<5 { #expect(fail("kim", "a", at: start) == nil) }
        #expect(fail("kim", "a", at: start) == .seconds(1))
        #expect(fail("kim", "a", at: start + .seconds(1)) == nil)
        #expect(fail("kim", "a", at: start + .seconds(1)) == .seconds(2))
        // The same account from elsewhere, and another account from here, are not held back.
        #expect(throttle.begin(username: "kim", address: "b", now: start + .seconds(1)) == nil)
        throttle.finish(username: "kim", address: "b", succeeded: true)
        // Spraying one password over many accounts from one address: 20 free failures, then delays.
        for index in 0..<14 { #expect(fail("user\(index)", "a", at: start + .seconds(2)) == nil) }
        #expect(fail("user99", "a", at: start + .seconds(2)) != nil)
        // Simultaneous attempts count as failures while they are undecided.
        for _ in 0..<5 { #expect(throttle.begin(username: "lee", address: "c", now: start) == nil) }
        #expect(throttle.begin(username: "lee", address: "c", now: start) != nil)
    }

    @Test func theHashingQueueIsBounded() async throws {
        let pool = HashingPool(threads: 1, queueLimit: 0)
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let holder = Task {
            try await pool.run {
                started.signal()
                release.wait()
                return 0
            }
        }
        started.wait()
        // The one thread is busy and nothing may wait: refused at once, not queued.
        #expect(try await pool.run { 1 } == nil)
        release.signal()
        #expect(try await holder.value == 0)
        #expect(try await pool.run { 2 } == 2)
    }

    @Test func aKnownPathWithAnotherMethodGets405WithAllow() async throws {
        try await TestServer.run { client, _ in
            let ann = try await client.signUp("ann")
            let wrong = try await client.send(.put, "/api/v1/posts/1", as: ann)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "GET, HEAD, PATCH, DELETE")
            #expect(try await client.send(.post, "/api/v1/timeline").headers[.allow] == "GET, HEAD")
            #expect(try await client.send(.delete, "/healthz").status == .methodNotAllowed)
            #expect(try await client.send(.get, "/api/v1/nothing-here").status == .notFound)
            #expect(try await client.send(.head, "/healthz").status == .ok)
        }
    }

    @Test func jsonEndpointsRefuseOtherMediaTypes() async throws {
        try await TestServer.run { client, _ in
            let body = ByteBuffer(string: #"{"username":"ann","password":"correct horse","displayName":"Ann"}"#)
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let problem = try await client.problem(
                    .post, "/api/v1/accounts", headers: [.contentType: type], body: body)
                #expect(problem.status == 415, "\(type)")
            }
            let missing = try await client.problem(.post, "/api/v1/accounts", body: body)
            #expect(missing.status == 415)
            let json = try await client.executeRequest(
                uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json; charset=utf-8"],
                body: ByteBuffer(string: #"{"username":"ann","password":"correct horse"}"#))
            #expect(json.status == .unauthorized)
        }
    }

    @Test func rateLimitsAreReadFromTheirSettings() {
        #expect(RateLimit(parsing: "20/h") == RateLimit(20, per: .seconds(3600)))
        #expect(RateLimit(parsing: "5/10s") == RateLimit(5, per: .seconds(10)))
        #expect(
            RateLimit(parsing: "x/h") == nil && RateLimit(parsing: "5/y") == nil && RateLimit(parsing: "0/s") == nil)
        var limits = RateLimits()
        #expect(limits.apply("likes=off") && limits.likes == nil)
        #expect(limits.apply("posts=3/m") && limits.posts == RateLimit(3, per: .seconds(60)))
        #expect(!limits.apply("nothing=3/m") && !limits.apply("posts"))
        #expect(RateLimit(3, per: .seconds(60)).description == "3/m")
    }

    @Test func addressesBehindProxiesAreReadFromTheRight() throws {
        try check()
    }

    private func check() throws {
        let proxies = try #require(TrustedProxies(parsing: "10.0.0.0/8, ::1"))
        let peer = try SocketAddress(ipAddress: "10.1.2.3", port: 1)
        #expect(proxies.client(peer: peer, headers: [.xForwardedFor: "1.2.3.4, 10.9.9.9"]) == "1.2.3.4")
        #expect(proxies.client(peer: peer, headers: [.xForwardedFor: "spoofed, 5.6.7.8"]) == "5.6.7.8")
        #expect(proxies.client(peer: peer, headers: [:]) == "10.1.2.3")
        let outsider = try SocketAddress(ipAddress: "192.0.2.1", port: 1)
        #expect(proxies.client(peer: outsider, headers: [.xForwardedFor: "1.2.3.4"]) == "192.0.2.1")
        #expect(TrustedProxies(parsing: "not an address") == nil)
        #expect(TrustedProxies.canonical("::ffff:1.2.3.4") == "1.2.3.4")
    }
}
