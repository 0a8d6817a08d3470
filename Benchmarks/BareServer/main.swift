import Foundation
import HTTPTypes
import Hummingbird

/// The baselines for benchmarks: a bare Hummingbird JSON endpoint, no database, no auth (`/json`), and, given a body
/// file and a headers file, an endpoint that answers exactly those bytes with those headers from memory (`/page`):
/// what this stack needs to send a page as big as a real one.
/// Usage: BareServer PORT [BODY_FILE HEADERS_FILE]
struct Greeting: ResponseEncodable {
    var message: String
    var count: Int
}

let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap(Int.init) ?? 8081
let router = Router()
router.get("json") { _, _ in Greeting(message: "Hello, World!", count: 1) }
if arguments.count >= 3 {
    let body = try Data(contentsOf: URL(fileURLWithPath: arguments[arguments.startIndex + 1]))
    var headers = HTTPFields()
    let lines = try String(contentsOfFile: arguments[arguments.startIndex + 2], encoding: .utf8)
    for line in lines.split(whereSeparator: \.isNewline) {
        guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
        // Length, date and server name are the server's own to write.
        if [.contentLength, .date, .server, .transferEncoding, .connection].contains(name) { continue }
        headers.append(
            HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    let buffer = ByteBuffer(data: body)
    let fields = headers
    router.get("page") { _, _ in Response(status: .ok, headers: fields, body: .init(byteBuffer: buffer)) }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
