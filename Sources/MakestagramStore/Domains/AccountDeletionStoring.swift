import Foundation
import MakestagramAPI

/// Deleting an account: hidden at once, its rows removed in batches. Part of ``Store``; both stores implement it.
public protocol AccountDeletionStoring: Sendable {
    /// Begins deleting the user's account, in one transaction: the account is hidden from everyone at once
    /// (``AccountStatus/deleting``), its sessions end, and its username is reserved until `reserveUsernameUntil`
    /// (``SessionStoring/createUser(_:)`` refuses it as taken). Publishes ``StoreEvent/userRemoved(user:username:status:)``. Its rows go in
    /// later batches (``continueAccountDeletion(userID:limit:)``).
    func beginAccountDeletion(userID: Int64, reserveUsernameUntil: Date) async throws
    /// The accounts whose deletion began but did not finish (after a crash, say), oldest first.
    func accountsBeingDeleted() async throws -> [Int64]
    /// Deletes up to about `limit` rows of an account being deleted, in one transaction: first its likes, comments,
    /// reports and follows (each published as an unlike, a deleted comment or an unfollow, so that every count and
    /// screen follows), then its posts, and last the user. Answers the media files no longer referenced. An
    /// account not being deleted is left alone (finished, no files).
    ///
    /// While federation runs (its consumer, ``FederationStoring/federationConsumer``, is in the log), an account
    /// that has an actor key (other servers may hold its posts) was given a farewell when its deletion began: its
    /// user row, with its key, stays (``AccountDeletionStep/waiting``) until federation has queued the `Delete` of
    /// its actor (``FederationStoring/queueDeliveries(_:farewells:consumer:batch:taking:)``) and no delivery it sends is
    /// pending, so that every server is told, signed with its key.
    func continueAccountDeletion(userID: Int64, limit: Int) async throws -> AccountDeletionStep
}
