import HTTPTypes
import Metrics
import Synchronization

/// Request counters and timers by route, method and status, made once per combination.
final class RequestMetrics: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int

        var dimensions: [(String, String)] {
            [("http.route", route), ("http.request.method", method.rawValue)]
        }
    }

    private struct Handles: Sendable {
        let requests: Counter
        let duration: Timer
        /// Made at the first failure, so that routes that never fail export no error series.
        var errors: Counter?

        init(_ key: Key) {
            requests = Counter(
                label: "hb.requests", dimensions: key.dimensions + [("http.response.status_code", "\(key.status)")])
            duration = Timer(
                label: "http.server.request.duration",
                dimensions: key.dimensions + [("http.response.status_code", "\(key.status)")],
                preferredDisplayUnit: .seconds)
        }
    }

    private let handles = Mutex<[Key: Handles]>([:])

    func record(route: String, method: HTTPRequest.Method, status: Int, elapsed: Duration, failed: Bool) {
        let key = Key(route: route, method: method, status: status)
        let metrics = handles.withLock { handles in
            if let found = handles[key], !failed || found.errors != nil { return found }
            var metrics = handles[key] ?? Handles(key)
            if failed {
                metrics.errors = Counter(
                    label: "hb.request.errors", dimensions: key.dimensions + [("error.type", "\(key.status)")])
            }
            handles[key] = metrics
            return metrics
        }
        metrics.requests.increment()
        metrics.duration.record(duration: elapsed)
        if failed { metrics.errors?.increment() }
    }
}
