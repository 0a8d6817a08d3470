// MakestagramAPI: the wire types every part shares — users, posts, comments, pages, problems and their codes, the
// live-update messages, field limits and text rules — with no dependency beyond Foundation, so that the server,
// the SDK, the command line and (through the constants the server writes for it) the web client agree by
// construction rather than by copies.

import Foundation

/// The JSON conventions of the API (ISO 8601 dates), shared by server and clients.
public enum JSONCoding {
    /// An encoder producing the API's JSON: keys in a stable (sorted) order, so that the same data is the same bytes
    /// from one answer to the next, and slashes in URLs as they are.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder reading the API's JSON.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Where the server serves media files.
public enum MediaPath {
    /// The URL path of a stored file.
    public static func url(for fileName: String) -> String { "/media/\(fileName)" }

    /// The stored file's name in a URL path made by ``url(for:)``.
    public static func fileName(ofURL url: String) -> String {
        url.hasPrefix("/media/") ? String(url.dropFirst("/media/".count)) : url
    }
}
