import Hummingbird

/// The baseline for benchmarks: a bare Hummingbird JSON endpoint, no database, no auth.
struct Greeting: ResponseEncodable {
    var message: String
    var count: Int
}

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8081
let router = Router()
router.get("json") { _, _ in Greeting(message: "Hello, World!", count: 1) }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
