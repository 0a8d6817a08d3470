import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one HTTP request and answers the body and response; the client's only way to the network, so tests and
/// apps can put something in between.
public protocol HTTPTransport: Sendable {
    /// Sends `request` (its body included) and answers the response body and head. `progress` gets the fraction
    /// of the request body sent, for uploads. Throws only when no response arrived.
    func send(_ request: URLRequest, progress: (@Sendable (Double) -> Void)?) async throws -> (Data, HTTPURLResponse)
}

/// The transport of Apple platforms and Linux (FoundationNetworking): URLSession. A cancelled caller gets
/// ``MakestagramError/cancelled`` at once; on Linux the request itself still runs to its end, unheard, because
/// swift-corelibs-foundation cannot cancel a task safely.
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    /// A transport over `session` (an ephemeral session by default: the SDK keeps its own caches).
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    public func send(_ request: URLRequest, progress: (@Sendable (Double) -> Void)?) async throws -> (
        Data, HTTPURLResponse
    ) {
        let (data, response): (Data, URLResponse)
        if let progress, let body = request.httpBody {
            (data, response) = try await UploadDelegate.upload(request, body: body, progress: progress)
        } else {
            (data, response) = try await Self.data(for: request, in: session)
        }
        guard let http = response as? HTTPURLResponse else {
            throw MakestagramError.invalidResponse("not an HTTP response")
        }
        return (data, http)
    }

    /// `session.data(for:)`, with cancellation that is safe on Linux (see ``RequestAnswer``).
    static func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let answer = RequestAnswer()
        let task = session.dataTask(with: request) { data, response, error in
            answer.deliver(data: data, response: response, error: error)
        }
        return try await answer.wait(for: task)
    }
}

/// The answer to one URLSession task, delivered to its caller once: the response, the error, or — when the caller
/// is cancelled — `CancellationError`.
///
/// On Linux, swift-corelibs-foundation cannot cancel a task safely: `URLSessionTask.cancel()` from a cancellation
/// handler deadlocks with a request completing at that moment (swift-corelibs-foundation issue 5412; its own async
/// `data(for:)` does exactly this), and a cancel that races the task's end crashes ("a task that in not in the
/// registry"). So there a cancelled caller gets its answer at once and the request runs to its end unheard. On
/// Apple platforms the task is cancelled.
final class RequestAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    private var early: Result<(Data, URLResponse), any Error>?
    private var delivered = false

    /// Hands over the answer; only the first one counts.
    func deliver(_ result: Result<(Data, URLResponse), any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<(Data, URLResponse), any Error>? in
            guard !delivered else { return nil }
            guard let continuation else {
                if early == nil { early = result }
                return nil
            }
            delivered = true
            self.continuation = nil
            return continuation
        }
        waiting?.resume(with: result)
    }

    /// Hands over what a task ended with: its error, or its body and response.
    func deliver(data: Data?, response: URLResponse?, error: (any Error)?) {
        if let error {
            deliver(.failure(error))
        } else if let data, let response {
            deliver(.success((data, response)))
        } else {
            deliver(.failure(URLError(.badServerResponse)))
        }
    }

    /// Starts `task` and waits for its answer (or for the caller's cancellation).
    func wait(for task: URLSessionTask) async throws -> (Data, URLResponse) {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let result = lock.withLock { () -> Result<(Data, URLResponse), any Error>? in
                    if let early {
                        delivered = true
                        return early
                    }
                    self.continuation = continuation
                    return nil
                }
                if let result {
                    continuation.resume(with: result)
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            #if canImport(FoundationNetworking)
                // Not on this thread: it holds the cancelled task's status lock, which resuming it may need.
                DispatchQueue.global().async { self.deliver(.failure(CancellationError())) }
            #else
                task.cancel()
            #endif
        }
    }
}

/// Reports an upload's progress: URLSession tells a session delegate how much of a body it sent (the async
/// `upload(for:from:)` does not, on every platform), so each upload gets its own short-lived session.
final class UploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let progress: @Sendable (Double) -> Void
    private let lock = NSLock()
    private var received = Data()
    private let answer = RequestAnswer()

    private init(progress: @escaping @Sendable (Double) -> Void) {
        self.progress = progress
    }

    static func upload(_ request: URLRequest, body: Data, progress: @escaping @Sendable (Double) -> Void)
        async throws -> (Data, URLResponse)
    {
        let delegate = UploadDelegate(progress: progress)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = request
        request.httpBody = nil
        let task = session.uploadTask(with: request, from: body)
        return try await delegate.answer.wait(for: task)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard totalBytesExpectedToSend > 0 else { return }
        progress(min(1, Double(totalBytesSent) / Double(totalBytesExpectedToSend)))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { received.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        answer.deliver(data: lock.withLock { received }, response: task.response, error: error)
    }
}
