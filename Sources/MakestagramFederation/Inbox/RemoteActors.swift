import Foundation
import MakestagramStore
import Synchronization

/// The people of other servers whose activities arrived lately, kept in memory: a busy server's likes each name the
/// same few actors, and reading one from the database was a seventh of an inbox request's time. An actor is kept at
/// most ``lifetime``, and forgotten as soon as the store says they were removed or restored here (a moderator's
/// suspension): it is one of the store's event sinks, which hear the changes of every instance.
public final class RemoteActors: StoreEventSink {
    private struct State {
        var actors: [String: (actor: RemoteActor, until: ContinuousClock.Instant)] = [:]
        /// Grows with every forgetting, so that an actor read before it is not kept after it.
        var epoch: UInt64 = 0
    }
    private let state = Mutex(State())
    /// The most actors kept; past it, all are forgotten and read again as they come.
    static var capacity: Int { 10_000 }
    /// How long an actor is kept.
    static var lifetime: Duration { .seconds(300) }

    public init() {}

    public func publish(_ event: StoreEvent) {
        switch event {
        case .userRemoved(let user, _, _), .userRestored(let user, _): forget(user: user)
        default: break
        }
    }

    /// The actor `uri` names, if kept, and the epoch to keep a fresh read of it with.
    func actor(uri: String) -> (actor: RemoteActor?, epoch: UInt64) {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let kept = state.actors[uri], kept.until > now else { return (nil, state.epoch) }
            return (kept.actor, state.epoch)
        }
    }

    /// Keeps `actor`, read from the store at `epoch` (not if someone was forgotten since).
    func keep(_ actor: RemoteActor, readAt epoch: UInt64) {
        let until = ContinuousClock.now + Self.lifetime
        state.withLock { state in
            guard state.epoch == epoch else { return }
            if state.actors.count >= Self.capacity { state.actors.removeAll(keepingCapacity: true) }
            state.actors[actor.uri] = (actor, until)
        }
    }

    /// Forgets the actor `uri` names (their document was fetched again).
    func forget(uri: String) {
        state.withLock { state in
            state.epoch &+= 1
            state.actors[uri] = nil
        }
    }

    /// Forgets the person `user` is, whatever their id.
    func forget(user: Int64) {
        state.withLock { state in
            state.epoch &+= 1
            if let uri = state.actors.first(where: { $0.value.actor.userID == user })?.key { state.actors[uri] = nil }
        }
    }
}
