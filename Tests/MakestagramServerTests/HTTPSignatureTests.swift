import Crypto
import Foundation
import MakestagramFederation
import Testing
import _CryptoExtras

/// HTTP Signatures (draft-cavage) as signed and checked here; the peer tests check them against another library.
@Suite struct HTTPSignatureTests {
    static let key = try! SigningKey.make()

    static func signedPost(body: Data, date: Date = Date()) throws -> (HTTPSignature.Request, HTTPSignature) {
        var request = HTTPSignature.Request(
            method: "POST", target: "/users/alice/inbox",
            headers: [
                "Host": "mk-a.test", "Date": HTTPSignature.httpDate(date), "Digest": HTTPSignature.digest(of: body),
            ])
        let signature = try HTTPSignature.sign(request, keyID: "http://peer.test/users/bob#main-key", key: key)
        request.headers["signature"] = signature.header
        return (request, signature)
    }

    @Test func aSignedPostVerifiesAndAnyChangeBreaksIt() throws {
        let body = Data(#"{"type":"Like"}"#.utf8)
        let (request, signature) = try Self.signedPost(body: body)
        let parsed = try HTTPSignature(header: signature.header)
        #expect(parsed == signature)
        #expect(parsed.headers == ["(request-target)", "host", "date", "digest"])
        try parsed.checkCoverage(of: request, body: body)
        let pem = Self.key.publicKeyPEM
        #expect(try parsed.verifies(request, publicKeyPEM: pem))

        var moved = request
        moved.target = "/users/carol/inbox"
        #expect(try !parsed.verifies(moved, publicKeyPEM: pem), "another path")
        var otherHost = request
        otherHost.headers["host"] = "mk-b.test"
        #expect(try !parsed.verifies(otherHost, publicKeyPEM: pem), "another host")
        let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
        #expect(try !parsed.verifies(request, publicKeyPEM: stranger), "another key")
        #expect(throws: HTTPSignature.Failure.digestMismatch) {
            try parsed.checkCoverage(of: request, body: Data(#"{"type":"Undo"}"#.utf8))
        }
    }

    @Test func theSignatureIsPKCS1OverSHA256AsSwiftCryptoMakesIt() throws {
        // On Linux the key signs with the system's OpenSSL; PKCS#1 v1.5 is deterministic, so its bytes must be
        // swift-crypto's, and a key read back from its DER signs the same.
        let text = Data("(request-target): post /inbox\nhost: mk-a.test".utf8)
        let signed = try Self.key.signature(for: text)
        let expected = try Self.key.key.signature(for: text, padding: .insecurePKCS1v1_5).rawRepresentation
        #expect(signed == expected)
        #expect(try SigningKey(derRepresentation: Self.key.derRepresentation).signature(for: text) == expected)
        #expect(try Self.key.signature(for: Data()) != expected)
    }

    @Test func theDigestsAlgorithmNameIsReadInAnyCaseAndHs2019IsAccepted() throws {
        let body = Data("{}".utf8)
        var (request, signature) = try Self.signedPost(body: body)
        request.headers["digest"] = request.headers["digest"]!.replacingOccurrences(of: "SHA-256", with: "sha-256")
        signature.algorithm = "hs2019"
        try signature.checkCoverage(of: request, body: body)
        signature.algorithm = "rsa-sha512"
        #expect(throws: HTTPSignature.Failure.unsupportedAlgorithm("rsa-sha512")) {
            try signature.checkCoverage(of: request, body: body)
        }
    }

    @Test func anOldOrFutureDateAndAnUncoveredHeaderAreRefused() throws {
        let body = Data("{}".utf8)
        let (old, oldSignature) = try Self.signedPost(body: body, date: Date().addingTimeInterval(-13 * 3600))
        #expect(throws: HTTPSignature.Failure.dateOutOfRange) { try oldSignature.checkCoverage(of: old, body: body) }
        let (future, futureSignature) = try Self.signedPost(body: body, date: Date().addingTimeInterval(13 * 3600))
        #expect(throws: HTTPSignature.Failure.dateOutOfRange) {
            try futureSignature.checkCoverage(of: future, body: body)
        }
        let (request, signature) = try Self.signedPost(body: body)
        var partial = signature
        partial.headers = ["(request-target)", "host", "date"]
        #expect(throws: HTTPSignature.Failure.headerNotSigned("digest")) {
            try partial.checkCoverage(of: request, body: body)
        }
    }

    @Test func headersAreReadWhateverTheirOrderAndSpacing() throws {
        let text =
            #"signature="AAAA", headers="(request-target) host date digest",  keyId="http://x.test/a#k",algorithm="hs2019""#
        let parsed = try HTTPSignature(header: text)
        #expect(parsed.keyID == "http://x.test/a#k" && parsed.algorithm == "hs2019" && parsed.headers.count == 4)
        #expect(throws: HTTPSignature.Failure.self) { try HTTPSignature(header: #"keyId="a",signature="AAAA"#) }
        #expect(throws: HTTPSignature.Failure.self) { try HTTPSignature(header: #"headers="date""#) }
        #expect(HTTPSignature.parseDate(HTTPSignature.httpDate(Date(timeIntervalSince1970: 784_111_777))) != nil)
        #expect(HTTPSignature.httpDate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPSignature.parseDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPSignature.httpDate(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        for seconds in stride(from: 0, to: 4_000_000_000, by: 9_876_543) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPSignature.parseDate(HTTPSignature.httpDate(date)) == date)
        }
        #expect(HTTPSignature.parseDate("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(HTTPSignature.parseDate("Sun, 36 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPSignature.parseDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
    }
}
