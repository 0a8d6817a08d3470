import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// HTTP Signatures as the fediverse uses them (draft-cavage-http-signatures-12): a `Signature` header naming the key,
/// the headers signed and an RSA-SHA256 signature (PKCS #1 v1.5) over them, one per line. `hs2019` is accepted as
/// the same thing, which is what Mastodon and Pixelfed mean by it.
public struct HTTPSignature: Sendable, Equatable {
    /// The id of the key that signed: an actor's `publicKey.id`.
    public var keyID: String
    /// The headers signed, lower-case, in order; `(request-target)` stands for the method and path.
    public var headers: [String]
    public var algorithm: String?
    public var signature: Data

    /// What a request is made of, for signing or checking.
    public struct Request: Sendable {
        public var method: String
        /// The path with its query, as sent.
        public var target: String
        /// Headers by lower-case name; several values of one name are joined with ", ".
        public var headers: [String: String]

        public init(method: String, target: String, headers: [String: String]) {
            self.method = method
            self.target = target
            self.headers = Dictionary(
                headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        }
    }

    /// Why a signature was not accepted.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missing
        case malformed(String)
        case unsupportedAlgorithm(String)
        case headerNotSigned(String)
        case headerMissing(String)
        case digestMismatch
        case dateOutOfRange
        case invalid

        public var description: String {
            switch self {
            case .missing: "the request is not signed"
            case .malformed(let why): "the Signature header cannot be read: \(why)"
            case .unsupportedAlgorithm(let name): "the signature algorithm \(name) is not supported"
            case .headerNotSigned(let name): "the signature does not cover \(name)"
            case .headerMissing(let name): "the signed header \(name) is missing"
            case .digestMismatch: "the Digest does not match the body"
            case .dateOutOfRange: "the Date is more than 12 hours off"
            case .invalid: "the signature does not verify"
            }
        }
    }

    /// How far a `Date` may be from now.
    public static let dateTolerance: TimeInterval = 12 * 3600

    /// Reads a `Signature` header (`keyId="…",algorithm="…",headers="…",signature="…"`).
    public init(header: String) throws(Failure) {
        var fields: [String: String] = [:]
        var rest = Substring(header)
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == "," })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else { throw .malformed("an unclosed quote") }
                value = rest[..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            guard fields[name] == nil else { throw .malformed("\(name) twice") }
            fields[name] = String(value)
        }
        guard let keyID = fields["keyid"], !keyID.isEmpty else { throw .malformed("no keyId") }
        guard let encoded = fields["signature"], let signature = Data(base64Encoded: encoded) else {
            throw .malformed("no signature")
        }
        self.keyID = keyID
        self.signature = signature
        self.algorithm = fields["algorithm"]?.lowercased()
        self.headers = (fields["headers"] ?? "date").lowercased().split(separator: " ").map(String.init)
    }

    public init(keyID: String, headers: [String], algorithm: String?, signature: Data) {
        self.keyID = keyID
        self.headers = headers
        self.algorithm = algorithm
        self.signature = signature
    }

    /// The header's text.
    public var header: String {
        var parts = ["keyId=\"\(keyID)\""]
        if let algorithm { parts.append("algorithm=\"\(algorithm)\"") }
        parts.append("headers=\"\(headers.joined(separator: " "))\"")
        parts.append("signature=\"\(signature.base64EncodedString())\"")
        return parts.joined(separator: ",")
    }

    /// The text signed: one `name: value` line per signed header.
    static func signingString(_ request: Request, headers: [String]) throws(Failure) -> String {
        var lines: [String] = []
        for name in headers {
            if name == "(request-target)" {
                lines.append("(request-target): \(request.method.lowercased()) \(request.target)")
            } else {
                guard let value = request.headers[name] else { throw .headerMissing(name) }
                lines.append("\(name): \(value.trimmingCharacters(in: .whitespaces))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Signs `request` with `key` under `keyID`, over `(request-target)`, `host`, `date` and, when there is a body,
    /// `digest`; the request must carry those headers already (``signedHeaders(method:target:host:body:date:)``).
    public static func sign(_ request: Request, keyID: String, key: SigningKey) throws -> HTTPSignature {
        var headers = ["(request-target)", "host", "date"]
        if request.headers["digest"] != nil { headers.append("digest") }
        let text = try signingString(request, headers: headers)
        let signature = try key.signature(for: Data(text.utf8))
        return HTTPSignature(keyID: keyID, headers: headers, algorithm: "rsa-sha256", signature: signature)
    }

    /// The `Digest` header of `body`: `SHA-256=` and the base64 of its SHA-256.
    public static func digest(of body: some DataProtocol) -> String {
        "SHA-256=" + Data(SHA256.hash(data: body)).base64EncodedString()
    }

    /// The `Date` header for `date` (IMF-fixdate), written by hand as ``parseDate(_:)`` reads it.
    public static func httpDate(_ date: Date = Date()) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let weekday = weekdays[((days % 7) + 7) % 7]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// Reads an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), read by hand: every inbox request has one, and a
    /// date formatter per request costs more than the signature's verification.
    public static func parseDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8.drop(while: { $0 == 0x20 }))
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, fixed positions.
        guard bytes.count >= 29, bytes[3] == 0x2C, bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == 0x3A, bytes[22] == 0x3A, bytes[25] == 0x20,
            String(decoding: bytes[26..<29], as: UTF8.self) == "GMT"
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25),
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)).map({ $0 + 1 }),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Checks what can be checked without the key: that a POST's signature covers `(request-target)`, `host`,
    /// `date` and `digest`, that the `Digest` (its algorithm named in any case) matches `body` as received, and that
    /// the `Date` is within ``dateTolerance`` of `now`.
    public func checkCoverage(of request: Request, body: some DataProtocol, now: Date = Date()) throws(Failure) {
        if let algorithm, !["rsa-sha256", "hs2019"].contains(algorithm) { throw .unsupportedAlgorithm(algorithm) }
        var required = ["(request-target)", "host", "date"]
        if request.method.uppercased() == "POST" { required.append("digest") }
        for name in required where !headers.contains(name) { throw .headerNotSigned(name) }
        guard let dateText = request.headers["date"], let date = Self.parseDate(dateText) else {
            throw .headerMissing("date")
        }
        guard abs(date.timeIntervalSince(now)) <= Self.dateTolerance else { throw .dateOutOfRange }
        if let digests = request.headers["digest"] {
            let sha256 = digests.split(separator: ",").compactMap { item -> Substring? in
                let trimmed = item.drop(while: { $0 == " " })
                guard let equals = trimmed.firstIndex(of: "="),
                    trimmed[..<equals].lowercased() == "sha-256"
                else { return nil }
                return trimmed[trimmed.index(after: equals)...]
            }
            guard let value = sha256.first, Data(base64Encoded: String(value)) == Data(SHA256.hash(data: body)) else {
                throw .digestMismatch
            }
        } else if request.method.uppercased() == "POST" {
            throw .headerMissing("digest")
        }
    }

    /// Whether the signature over `request`'s signed headers verifies with `publicKeyPEM`.
    public func verifies(_ request: Request, publicKeyPEM: String) throws(Failure) -> Bool {
        let text = try Self.signingString(request, headers: headers)
        guard let key = PublicKeys.shared.key(pem: publicKeyPEM) else { return false }
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data(text.utf8), padding: .insecurePKCS1v1_5)
    }
}

/// Public keys read from PEM, kept by their text: the same few peers' keys verify most requests, and reading a PEM
/// costs more than a verification.
final class PublicKeys: Sendable {
    static let shared = PublicKeys()
    private let keys = Mutex<[String: _RSA.Signing.PublicKey]>([:])
    /// The most keys held; past it, the held ones are forgotten and read again as they come.
    let limit = 4096

    func key(pem: String) -> _RSA.Signing.PublicKey? {
        if let key = keys.withLock({ $0[pem] }) { return key }
        guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) else { return nil }
        keys.withLock {
            if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
            $0[pem] = key
        }
        return key
    }
}
