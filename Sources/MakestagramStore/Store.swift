// MakestagramStore: what the server keeps, as a protocol — the Store's operations, its records and errors, and the
// StoreEvent each committed change becomes — so that routes, caches and live updates never depend on which
// database sits underneath.

import Foundation
import MakestagramAPI

/// Everything the server keeps, behind one protocol so that SQLite and PostgreSQL both serve it.
///
/// Every method is atomic: it either makes all of its change or none of it. Counts (likes, comments, follows,
/// posts, reports) are kept by the store in the same transaction as the rows they count, so they are always exact.
/// Every write also appends its change to the change log (``ChangeLogStore``) in that transaction; what is derived
/// from changes (activity, unread counts) is applied from the log after the commit, by the activity consumer.
/// Methods that take a `viewer` compute the viewer-specific fields (`viewerHasLiked`, `viewerFollows`).
///
/// A store given a ``StoreEventSink`` publishes one ``StoreEvent`` for every committed like, unlike, comment, post,
/// follow and log-out, after the commit and in commit order, so that live updates never announce a change that was
/// rolled back and never reorder two changes to one post. The same events keep the store's caches true
/// (``StoreCaches``).
///
/// Its members are grouped by domain, one protocol each (``SessionStoring``, ``PeopleStoring``, ``PostStoring``,
/// ``InteractionStoring``, ``ActivityStoring``, ``AppStoring``, ``AccountDeletionStoring``, ``ModerationStoring``,
/// ``MaintenanceStoring``, ``FederationStoring``) beside the change log (``ChangeLogStore``), so that a use case names the part it needs.
public protocol Store:
    ChangeLogStore, SessionStoring, PeopleStoring, PostStoring, InteractionStoring, ActivityStoring, AppStoring,
    AccountDeletionStoring, ModerationStoring, MaintenanceStoring, FederationStoring
{}
