import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// Writes one entry of the moderation log, naming the moderator and the user as they are now (the names stay
    /// when the accounts go).
    static func log(
        _ db: Database, _ action: ModerationAction, moderator: Int64?, user: Int64?, post: Int64?, reason: String,
        domain: String? = nil
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO moderation_log (created_at, moderator_id, moderator, action, user_id, username, post_id,
                  reason, domain)
                VALUES (:now, :moderator, (SELECT username FROM users WHERE id = :moderator), :action, :user,
                  (SELECT username FROM users WHERE id = :user), :post, :reason, :domain)
                """,
            arguments: [
                "now": now, "moderator": moderator, "action": action.rawValue, "user": user, "post": post,
                "reason": reason, "domain": domain,
            ])
    }

    public func setModerator(username: String, moderator: Bool, by: Int64?) async throws {
        try await write { db in
            guard let id = try Self.userID(db, username: username) else { throw StoreError.notFound("user") }
            try db.execute(
                sql: "UPDATE users SET is_moderator = ? WHERE id = ? AND is_moderator <> ?",
                arguments: [moderator, id, moderator])
            guard db.changesCount > 0 else { return }
            try Self.log(
                db, moderator ? .grantModerator : .revokeModerator, moderator: by, user: id, post: nil, reason: "")
        }
    }

    public func isModerator(userID: Int64) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(
                db, sql: "SELECT is_moderator FROM users WHERE id = ? AND status = 'active'", arguments: [userID])
                ?? false
        }
    }

    public func reportQueue(viewer: Int64, page: PageRequest) async throws -> PageResult<ReportedPost> {
        try await read { db in
            var arguments: StatementArguments = ["limit": page.limit + 1]
            var having = "1"
            if case .after(let after) = page.position {
                having = "min(r.id) > :key"
                _ = arguments.append(contentsOf: ["key": after])
            }
            var waiting = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.post_id, min(r.id) AS page_key, count(*) AS n, min(r.created_at) AS first
                    FROM reports r JOIN posts p ON p.id = r.post_id
                    JOIN users a ON a.id = p.author_id AND a.status = 'active'
                    WHERE r.handled_at IS NULL
                    GROUP BY r.post_id HAVING \(having) ORDER BY page_key LIMIT :limit
                    """, arguments: arguments)
            let hasMore = waiting.count > page.limit
            if hasMore { waiting.removeLast() }
            let ids: [Int64] = waiting.map { $0["post_id"] }
            let posts = Dictionary(
                try PostQuery.posts(db, ids: ids, viewer: viewer, hiding: hiddenNames, signing: mediaSigning).map {
                    ($0.id, $0)
                },
                uniquingKeysWith: { a, _ in a })
            var reports: [Int64: [PostReport]] = [:]
            let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT r.post_id, r.reason, r.created_at, u.id AS author_id, u.username, u.display_name,
                      u.avatar_file
                    FROM reports r JOIN users u ON u.id = r.reporter_id
                    WHERE r.post_id IN (SELECT value FROM json_each(?)) AND r.handled_at IS NULL ORDER BY r.id
                    """, arguments: [list])
            {
                let postID: Int64 = row["post_id"]
                guard (reports[postID]?.count ?? 0) < ReportedPost.reportsShown else { continue }
                reports[postID, default: []].append(
                    PostReport(
                        reporter: PostQuery.author(row), reason: row["reason"],
                        createdAt: Date(timeIntervalSince1970: row["created_at"])))
            }
            let items = waiting.compactMap { row -> ReportedPost? in
                guard let post = posts[row["post_id"]] else { return nil }
                return ReportedPost(
                    post: post, reportCount: row["n"], firstReportedAt: Date(timeIntervalSince1970: row["first"]),
                    reports: reports[post.id] ?? [])
            }
            return PageResult(items: items, nextKey: hasMore ? waiting.last?["page_key"] : nil)
        }
    }

    public func dismissReports(postID: Int64, moderator: Int64, reason: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE reports SET handled_at = ? WHERE post_id = ? AND handled_at IS NULL",
                arguments: [Self.now, postID])
            guard db.changesCount > 0 else { throw StoreError.notFound("report") }
            let author = try Int64.fetchOne(db, sql: "SELECT author_id FROM posts WHERE id = ?", arguments: [postID])
            try Self.log(db, .dismissReports, moderator: moderator, user: author, post: postID, reason: reason)
        }
    }

    public func removePost(postID: Int64, moderator: Int64, reason: String) async throws -> [String] {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT author_id, full_file, thumb_file, variants, version FROM posts WHERE id = ?",
                    arguments: [postID])
            else { throw StoreError.notFound("post") }
            try Self.log(db, .removePost, moderator: moderator, user: row["author_id"], post: postID, reason: reason)
            return try removePost(db, id: postID, author: row["author_id"], row: row)
        }
    }

    public func setSuspended(username: String, suspended: Bool, moderator: Int64, reason: String) async throws {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT id, username, status, is_moderator FROM users WHERE username = ? AND status <> 'deleting'
                        """,
                    arguments: [username])
            else { throw StoreError.notFound("user") }
            let id: Int64 = row["id"]
            let wasSuspended = (row["status"] as String) == AccountStatus.suspended.rawValue
            guard wasSuspended != suspended else { return }
            if suspended {
                if id == moderator || row["is_moderator"] as Bool { throw StoreError.forbidden }
                try db.execute(
                    sql: "UPDATE users SET status = 'suspended', status_changed_at = ? WHERE id = ?",
                    arguments: [Self.now, id])
                // The author's reported posts are dealt with: the queue no longer shows them.
                try db.execute(
                    sql: """
                        UPDATE reports SET handled_at = ?
                        WHERE handled_at IS NULL AND post_id IN (SELECT id FROM posts WHERE author_id = ?)
                        """, arguments: [Self.now, id])
                try Self.log(db, .suspend, moderator: moderator, user: id, post: nil, reason: reason)
                try hide(db, userID: id, status: .suspended)
            } else {
                try db.execute(
                    sql: "UPDATE users SET status = 'active', status_changed_at = ? WHERE id = ?",
                    arguments: [Self.now, id])
                try Self.log(db, .liftSuspension, moderator: moderator, user: id, post: nil, reason: reason)
                try publishOnCommit(db, .userRestored(user: id, username: row["username"]))
            }
        }
    }

    public func moderationLog(page: PageRequest) async throws -> PageResult<ModerationEntry> {
        try await read { db in
            try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT id AS page_key, * FROM moderation_log WHERE \(condition) ORDER BY id DESC LIMIT :limit
                    """
                }, arguments: [:], key: "id", descending: true, page: page,
                decode: { row in
                    let reason: String = row["reason"]
                    return ModerationEntry(
                        id: row["id"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                        moderator: row["moderator"],
                        action: row["action"],
                        username: row["username"], postId: row["post_id"], reason: reason.isEmpty ? nil : reason,
                        domain: row["domain"])
                })
        }
    }

    public func setDomainBlock(domain: String, severity: DomainBlockSeverity?, moderator: Int64, reason: String)
        async throws -> Bool
    {
        try await write { db in
            let old = try String.fetchOne(
                db, sql: "SELECT severity FROM domain_blocks WHERE domain = ?", arguments: [domain]
            ).flatMap(DomainBlockSeverity.init(rawValue:))
            guard old != severity else { return false }
            if let severity {
                try db.execute(
                    sql: """
                        INSERT INTO domain_blocks (domain, severity, reason, created_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (domain) DO UPDATE SET severity = excluded.severity, reason = excluded.reason,
                          created_at = excluded.created_at
                        """, arguments: [domain, severity.rawValue, reason, Self.now])
            } else {
                try db.execute(sql: "DELETE FROM domain_blocks WHERE domain = ?", arguments: [domain])
            }
            let action: ModerationAction =
                switch severity {
                case .suspend: .suspendDomain
                case .limit: .limitDomain
                case nil: .unblockDomain
                }
            try Self.log(db, action, moderator: moderator, user: nil, post: nil, reason: reason, domain: domain)
            try publishOnCommit(db, .domainBlockChanged(domain: domain, severity: severity))
            return true
        }
    }

    public func domainBlocks() async throws -> [DomainBlock] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM domain_blocks ORDER BY created_at DESC, domain").compactMap {
                row in
                guard let severity = DomainBlockSeverity(rawValue: row["severity"]) else { return nil }
                let reason: String = row["reason"]
                return DomainBlock(
                    domain: row["domain"], severity: severity, reason: reason.isEmpty ? nil : reason,
                    createdAt: Date(timeIntervalSince1970: row["created_at"]))
            }
        }
    }

    public func domainSeverity(ofHost host: String) -> DomainBlockSeverity? {
        database.caches.blockedDomains.severity(ofHost: host)
    }

    public var hiddenUsers: HiddenUsersSummary { database.caches.hiddenUsers.summary }

    public func privateUsersMedia() async throws -> Set<String> {
        try await read { db in try Self.files(db, Self.postFiles(of: "u.is_private = 1")) }
    }

    public func hiddenUsersMedia() async throws -> Set<String> {
        try await read { db in
            try Self.files(
                db,
                Self.postFiles(of: "u.status <> 'active'") + """

                    UNION ALL
                    SELECT m.full_file, m.thumb_file, m.variants FROM users u JOIN media_uploads m ON m.user_id = u.id
                    WHERE u.status <> 'active'
                    UNION ALL
                    SELECT avatar_file, avatar_large_file, NULL FROM users WHERE status <> 'active'
                    """)
        }
    }

    /// A statement of the files of the posts (every photo: `full_file, thumb_file, variants`) of the users `u` for whom
    /// `condition` holds.
    static func postFiles(of condition: String) -> String {
        """
        SELECT p.full_file, p.thumb_file, p.variants FROM users u JOIN posts p ON p.author_id = u.id WHERE \(condition)
        UNION ALL
        SELECT pp.full_file, pp.thumb_file, pp.variants
        FROM users u JOIN posts p ON p.author_id = u.id JOIN post_photos pp ON pp.post_id = p.id WHERE \(condition)
        """
    }

    /// The file names the rows of `sql` (`first, second, variants`) name.
    static func files(_ db: Database, _ sql: String) throws -> Set<String> {
        var files = Set<String>()
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            for column in 0...1 { if let name: String = row[column] { files.insert(name) } }
            for variant in StoredVariant.variants(column: row[2]) { files.insert(variant.fileName) }
        }
        return files
    }
}
