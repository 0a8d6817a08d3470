import Hummingbird
import Logging
import Metrics
import Synchronization

/// The outermost middleware: turns every error into problem details (logging server failures and counting errors by
/// code), writes the one access-log line per request (method, route, status, time; never query strings or headers)
/// and records the request metrics.
///
/// The metrics are those of Hummingbird's `MetricsMiddleware` (requests, duration, errors by route, method and
/// status), recorded here rather than by a middleware of their own: that extra layer, with the closure it adds
/// after the body is written, cost a quarter of a cached timeline page and a third of `/healthz`
/// (Benchmarks/HISTORY.md). The duration runs to the response head; a body streamed after it (media) is not timed.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let metrics = RequestMetrics()
    /// The methods of each route, for answering 405 to a known path asked with another method.
    let methods: MethodTable
    /// The answer to a browser asking for a page that does not exist (the app, which says so), or nil for a problem.
    var notFoundPage: @Sendable (Request) -> Response? = { _ in nil }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            finish(request, context, status: response.status.code, start: start, failed: false)
            return response
        } catch {
            var apiError = APIError(error)
            if case .notFound("route") = apiError {
                let allowed = methods.allowed(for: request.uri.path)
                if !allowed.isEmpty {
                    apiError = .methodNotAllowed(allow: allowed)
                } else if let page = notFoundPage(request) {
                    finish(request, context, status: page.status.code, start: start, failed: true)
                    return page
                }
            }
            let problem = apiError.problem
            if case .clientAborted = apiError {
                // The client went away mid-request: nothing to fix on the server, and nobody reads the answer.
                context.logger.debug("client closed the request before it was complete")
                Self.clientAborts.increment()
                throw apiError
            }
            if problem.status >= 500 {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            Counter(label: "makestagram_errors_total", dimensions: [("code", problem.code)]).increment()
            finish(request, context, status: problem.status, start: start, failed: true)
            throw apiError
        }
    }

    /// Requests whose client stopped sending before the body was whole (counted apart from errors).
    static let clientAborts = Counter(label: "makestagram_client_aborts_total")

    private func finish(
        _ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant, failed: Bool
    ) {
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? (failed ? "NotFound" : "Unknown")
        metrics.record(route: route, method: request.method, status: status, elapsed: elapsed, failed: failed)
        guard context.logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = ["ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000)"]
        if let user = context.requester.userID { metadata["user"] = "\(user)" }
        context.logger.info(
            "\(request.method) \(context.endpointPath ?? request.uri.path) \(status)", metadata: metadata)
    }
}
