import Hummingbird
import Synchronization

/// Which methods each route path answers, so that a known path asked with another method gets 405 and an `Allow`
/// header (RFC 9110 §15.5.6) rather than 404. Hummingbird's router keeps this to itself, so the table is filled by
/// ``RecordingRouter`` as routes are added, and consulted only for requests that matched no route.
final class MethodTable: Sendable {
    private struct Route {
        /// Path segments; `nil` matches any one segment (a capture or `*`).
        let segments: [String?]
        var methods: [String]
    }

    private let routes = Mutex<[Route]>([])

    func add(_ path: String, _ method: HTTPRequest.Method) {
        // Captures read `{name}` in a path's description.
        let segments = path.split(separator: "/").map { $0.hasPrefix("{") || $0 == "*" ? nil : String($0) }
        let added = method == .get ? ["GET", "HEAD"] : [method.rawValue]
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                routes[index].methods.append(contentsOf: added.filter { !routes[index].methods.contains($0) })
            } else {
                routes.append(Route(segments: segments, methods: added))
            }
        }
    }

    /// The methods of the routes whose path matches `path`, or none.
    func allowed(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        let methods = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in
                        pattern.map { $0 == segment } ?? true
                    }
            }.flatMap(\.methods)
        }
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
        return Array(Set(methods)).sorted {
            (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1)
        }
    }
}

/// A router that notes every route it is given in a ``MethodTable`` before passing it on.
final class RecordingRouter<Context: RequestContext>: RouterMethods {
    let router: Router<Context>
    let table: MethodTable

    init(_ router: Router<Context>, table: MethodTable) {
        self.router = router
        self.table = table
    }

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        table.add(path.description, method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
