import Foundation
import MakestagramAPI
import MakestagramFederation
import Testing

/// Host names as a hostile server would write them: a handle is looked up only when it names one host plainly, two
/// ids are on one server only when their origins are equal, and a block of a server covers every spelling of it.
@Suite struct HostTricksTests {
    @Test func aHandleNamesOneHostPlainlyOrNothing() {
        #expect(ActivityStreams.handle("@Bob@Peer.Test")! == ("bob", "peer.test"))
        #expect(ActivityStreams.handle("bob@peer.test:8443")! == ("bob", "peer.test:8443"))
        #expect(
            ActivityStreams.handle("bob@xn--80ak6aa92e.com")! == ("bob", "xn--80ak6aa92e.com"), "punycode as itself")
        for text in [
            "bob@peer.test/path", "bob@peer.test?x=1", "bob@peer.test#x", "bob@peer.test.", "bob@.peer.test",
            "bob@peer..test", "bob@-peer.test", "bob@peer.test@evil.test", "bob@@peer.test", "bob@peer.test:0",
            "bob@peer.test:70000", "bob@peer.test:", "bob@аpple.com", "bob@peer.test\u{0}", "bob@peer.test ",
            "b\u{0}b@peer.test", "@peer.test", "bob@", "bob", "bob@peer",
        ] {
            #expect(ActivityStreams.handle(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func idsAreOnOneServerOnlyWhenTheirOriginsAreEqual() {
        #expect(ActivityStreams.origin(of: "https://Peer.Test/users/x") == "https://peer.test:443")
        #expect(
            ActivityStreams.origin(of: "https://peer.test:443/a") == ActivityStreams.origin(of: "https://peer.test/b"))
        // CVE-2023-42451: a path is not part of the host.
        #expect(ActivityStreams.origin(of: "https://mastodon.so/cial/users/x") == "https://mastodon.so:443")
        #expect(ActivityStreams.origin(of: "http://peer.test@evil.test/users/x") == "http://evil.test:80")
        #expect(ActivityStreams.origin(of: "http://peer.test./x") != ActivityStreams.origin(of: "http://peer.test/x"))
        #expect(
            ActivityStreams.origin(of: "http://peer.test:8080/x") != ActivityStreams.origin(of: "http://peer.test/x"))
        #expect(ActivityStreams.origin(of: "https://peer.test/x") != ActivityStreams.origin(of: "http://peer.test/x"))
    }

    @Test func aBlockCoversEverySpellingOfItsServer() {
        for host in [
            "peer.test", "PEER.test.", "peer.test:8443", "img.peer.test", "a.b.peer.test..", "Img.Peer.Test:1",
        ] {
            #expect(DomainName.covers("peer.test", host: host), "\(host)")
        }
        for host in ["notpeer.test", "peer.test.evil", "xn--peer-test.evil", "peer.tes", "test"] {
            #expect(!DomainName.covers("peer.test", host: host), "\(host)")
        }
    }
}
