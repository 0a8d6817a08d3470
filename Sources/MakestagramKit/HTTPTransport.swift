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

/// The transport of Apple platforms and Linux (FoundationNetworking): URLSession.
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
            (data, response) = try await session.data(for: request)
        }
        guard let http = response as? HTTPURLResponse else {
            throw MakestagramError.invalidResponse("not an HTTP response")
        }
        return (data, http)
    }
}

/// Reports an upload's progress: URLSession tells a session delegate how much of a body it sent (the async
/// `upload(for:from:)` does not, on every platform), so each upload gets its own short-lived session.
final class UploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let progress: @Sendable (Double) -> Void
    private let lock = NSLock()
    private var received = Data()
    private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?

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
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.lock.withLock { delegate.continuation = continuation }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
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
        let (continuation, data) = lock.withLock { () -> (CheckedContinuation<(Data, URLResponse), any Error>?, Data) in
            defer { self.continuation = nil }
            return (self.continuation, received)
        }
        if let error {
            continuation?.resume(throwing: error)
        } else if let response = task.response {
            continuation?.resume(returning: (data, response))
        } else {
            continuation?.resume(throwing: URLError(.badServerResponse))
        }
    }
}
