import Hummingbird
import Logging
import Metrics

/// Turns every error into problem details, logs server failures and counts errors by code.
/// Also writes the one access-log line per request (method, route, status, time; never query strings or headers).
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, start: start)
            return response
        } catch {
            let apiError = APIError(error)
            let problem = apiError.problem
            if problem.status >= 500 {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            Counter(label: "makestagram_errors_total", dimensions: [("code", problem.code)]).increment()
            log(request, context, status: problem.status, start: start)
            throw apiError
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        guard context.logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - start
        var metadata: Logger.Metadata = ["ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000)"]
        if let user = context.requester.userID { metadata["user"] = "\(user)" }
        context.logger.info(
            "\(request.method) \(context.endpointPath ?? request.uri.path) \(status)", metadata: metadata)
    }
}
