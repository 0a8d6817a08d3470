import Foundation
import MakestagramAPI
import MakestagramStore

/// Short-lived, single-use tickets that let a browser open the event stream without putting its bearer token in a
/// URL (browsers cannot set headers on a WebSocket). Only their hashes are kept, in the store beside the sessions,
/// so that a ticket issued by one server instance opens the stream on any other.
struct EventTickets<S: Store>: Sendable {
    let store: S
    /// How long a ticket can be redeemed.
    var lifetime: Duration = .seconds(30)

    /// A new ticket for the session `tokenHash`, and when it expires.
    func issue(tokenHash: [UInt8]) async throws -> (ticket: String, expiresAt: Date) {
        let ticket = SessionToken.generate()
        let expiresAt = Date().addingTimeInterval(Double(lifetime.components.seconds))
        try await store.createEventTicket(
            ticketHash: SessionToken.hash(ticket), tokenHash: tokenHash, expiresAt: expiresAt)
        return (ticket, expiresAt)
    }

    /// The user and session of a live ticket, which is used up; nil for an unknown, used or expired ticket.
    func redeem(_ ticket: String) async throws -> (user: UserSummary, tokenHash: [UInt8])? {
        guard ticket.utf8.count <= 512 else { return nil }
        return try await store.redeemEventTicket(ticketHash: SessionToken.hash(ticket))
    }
}
