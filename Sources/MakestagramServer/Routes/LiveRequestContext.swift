import Hummingbird
import HummingbirdWebSocket
import MakestagramAPI
import NIOCore

/// The context of an event-stream upgrade request: who opened it and on which channel.
struct LiveRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The connection, so that a stalled client's socket can be closed outright.
    let channel: any Channel
    /// Set by the upgrade's authentication.
    var user: UserSummary?
    var tokenHash: [UInt8]?
    /// The origin the client reached the server at, where a stream needs it.
    var origin: String?

    init(source: Source) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
    }
}
