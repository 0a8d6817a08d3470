import Foundation
import MakestagramAPI
import Synchronization

/// Short-lived, single-use tickets that let a browser open the event stream without putting its bearer token in a
/// URL (browsers cannot set headers on a WebSocket). Only their hashes are kept, in memory: a ticket lives for
/// seconds, so one that a restart forgets is simply requested again.
final class EventTickets: Sendable {
    /// Whose ticket it is.
    struct Holder: Sendable {
        var user: UserSummary
        /// The session the ticket was issued under; the socket closes when it ends.
        var tokenHash: [UInt8]
        var expires: ContinuousClock.Instant
    }

    /// How long a ticket can be redeemed.
    let lifetime: Duration
    private let tickets = Mutex<[[UInt8]: Holder]>([:])

    init(lifetime: Duration = .seconds(30)) {
        self.lifetime = lifetime
    }

    /// A new ticket for `user`, and when it expires.
    func issue(for user: UserSummary, tokenHash: [UInt8]) -> (ticket: String, expiresAt: Date) {
        let ticket = SessionToken.generate()
        let now = ContinuousClock.now
        tickets.withLock { tickets in
            tickets = tickets.filter { $0.value.expires > now }
            tickets[SessionToken.hash(ticket)] = Holder(user: user, tokenHash: tokenHash, expires: now + lifetime)
        }
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) * 1e-18
        return (ticket, Date().addingTimeInterval(seconds))
    }

    /// The holder of a live ticket, which is used up; nil for an unknown, used or expired ticket.
    func redeem(_ ticket: String) -> Holder? {
        guard ticket.count <= 512 else { return nil }
        let hash = SessionToken.hash(ticket)
        return tickets.withLock { tickets in
            guard let holder = tickets.removeValue(forKey: hash), holder.expires > .now else { return nil }
            return holder
        }
    }
}
