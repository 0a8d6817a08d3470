import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    /// Writes one entry of the moderation log, naming the moderator and the user as they are now (the names stay
    /// when the accounts go).
    static func log(
        _ connection: PostgresConnection, _ action: ModerationAction, moderator: Int64?, user: Int64?, post: Int64?,
        reason: String, domain: String? = nil, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO moderation_log
              (created_at, moderator_id, moderator, action, user_id, username, post_id, reason, domain)
            VALUES (\(now), \(moderator), (SELECT username FROM users WHERE id = \(moderator)), \(action.rawValue),
              \(user), (SELECT username FROM users WHERE id = \(user)), \(post), \(reason), \(domain))
            """, logger: logger)
    }

    public func setModerator(username: String, moderator: Bool, by: Int64?) async throws {
        try await write { [logger] connection, _ in
            guard let id = try await Self.userID(connection, username: username, logger: logger) else {
                throw StoreError.notFound("user")
            }
            let changed = try await connection.query(
                """
                UPDATE users SET is_moderator = \(moderator) WHERE id = \(id) AND is_moderator <> \(moderator)
                RETURNING 1
                """, logger: logger
            ).collect()
            guard !changed.isEmpty else { return }
            try await Self.log(
                connection, moderator ? .grantModerator : .revokeModerator, moderator: by, user: id, post: nil,
                reason: "", logger: logger)
        }
    }

    public func isModerator(userID: Int64) async throws -> Bool {
        try await read { [logger] connection in
            try await connection.query(
                "SELECT is_moderator FROM users WHERE id = \(userID) AND status = 'active'", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        }
    }

    public func reportQueue(viewer: Int64, page: PageRequest) async throws -> PageResult<ReportedPost> {
        try await read { [logger] connection in
            var sql = SQL(
                """
                SELECT r.post_id, min(r.id), count(*), min(r.created_at)
                FROM reports r JOIN posts p ON p.id = r.post_id
                JOIN users a ON a.id = p.author_id AND a.status = 'active'
                WHERE r.handled_at IS NULL GROUP BY r.post_id
                """)
            if case .after(let after) = page.position { sql.append(" HAVING min(r.id) > \(sql.bind(after))") }
            sql.append(" ORDER BY 2 LIMIT \(sql.bind(page.limit + 1))")
            var waiting: [(post: Int64, key: Int64, count: Int, first: Double)] = []
            for try await (post, key, count, first) in try await connection.query(sql.query, logger: logger).decode(
                (Int64, Int64, Int, Double).self)
            {
                waiting.append((post, key, count, first))
            }
            let hasMore = waiting.count > page.limit
            if hasMore { waiting.removeLast() }
            let ids = waiting.map(\.post)
            let posts = Dictionary(
                try await PostRows.posts(
                    connection, ids: ids, viewer: viewer, hiding: self.hiddenNames, signing: self.mediaSigning,
                    logger: logger
                )
                .map { ($0.id, $0) },
                uniquingKeysWith: { first, _ in first })
            var reports: [Int64: [PostReport]] = [:]
            let rows = try await connection.query(
                """
                SELECT r.post_id, r.reason, r.created_at, u.id, u.username, u.display_name, u.avatar_file
                FROM reports r JOIN users u ON u.id = r.reporter_id
                WHERE r.post_id = ANY(\(ids)) AND r.handled_at IS NULL ORDER BY r.id
                """, logger: logger)
            for try await (postID, reason, createdAt, id, username, displayName, avatar) in rows.decode(
                (Int64, String, Double, Int64, String, String, String?).self)
            {
                guard (reports[postID]?.count ?? 0) < ReportedPost.reportsShown else { continue }
                reports[postID, default: []].append(
                    PostReport(
                        reporter: UserSummary(
                            id: id, username: username, displayName: displayName,
                            avatarURL: avatar.map(MediaPath.url(for:))),
                        reason: reason, createdAt: Date(timeIntervalSince1970: createdAt)))
            }
            let items = waiting.compactMap { item -> ReportedPost? in
                guard let post = posts[item.post] else { return nil }
                return ReportedPost(
                    post: post, reportCount: item.count, firstReportedAt: Date(timeIntervalSince1970: item.first),
                    reports: reports[post.id] ?? [])
            }
            return PageResult(items: items, nextKey: hasMore ? waiting.last?.key : nil)
        }
    }

    public func dismissReports(postID: Int64, moderator: Int64, reason: String) async throws {
        try await write { [logger] connection, _ in
            let handled = try await connection.query(
                """
                UPDATE reports SET handled_at = \(Self.now) WHERE post_id = \(postID) AND handled_at IS NULL
                RETURNING 1
                """, logger: logger
            ).collect()
            guard !handled.isEmpty else { throw StoreError.notFound("report") }
            let author = try await connection.query(
                "SELECT author_id FROM posts WHERE id = \(postID)", logger: logger
            ).collect().first?.decode(Int64.self)
            try await Self.log(
                connection, .dismissReports, moderator: moderator, user: author, post: postID, reason: reason,
                logger: logger)
        }
    }

    public func removePost(postID: Int64, moderator: Int64, reason: String) async throws -> [String] {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "SELECT author_id, full_file, thumb_file, variants, version FROM posts WHERE id = \(postID) FOR UPDATE",
                logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("post") }
            let (author, full, thumb, variants, version) = try row.decode((Int64, String, String, String?, Int64).self)
            try await Self.log(
                connection, .removePost, moderator: moderator, user: author, post: postID, reason: reason,
                logger: logger)
            return try await Self.removePost(
                connection, id: postID, author: author, version: version, files: [full, thumb], variants: variants,
                changes: changes, logger: logger)
        }
    }

    public func setSuspended(username: String, suspended: Bool, moderator: Int64, reason: String) async throws {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                """
                SELECT id, status, is_moderator FROM users
                WHERE username = \(Self.folded(username)) AND status <> 'deleting' FOR UPDATE
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("user") }
            let (id, status, isModerator) = try row.decode((Int64, String, Bool).self)
            guard (status == AccountStatus.suspended.rawValue) != suspended else { return }
            if suspended {
                if id == moderator || isModerator { throw StoreError.forbidden }
                try await connection.query(
                    "UPDATE users SET status = 'suspended', status_changed_at = \(Self.now) WHERE id = \(id)",
                    logger: logger)
                // The author's reported posts are dealt with: the queue no longer shows them.
                try await connection.query(
                    """
                    UPDATE reports SET handled_at = \(Self.now)
                    WHERE handled_at IS NULL AND post_id IN (SELECT id FROM posts WHERE author_id = \(id))
                    """, logger: logger)
                try await Self.log(
                    connection, .suspend, moderator: moderator, user: id, post: nil, reason: reason, logger: logger)
                try await Self.hide(connection, userID: id, status: .suspended, changes: changes, logger: logger)
            } else {
                try await connection.query(
                    "UPDATE users SET status = 'active', status_changed_at = \(Self.now) WHERE id = \(id)",
                    logger: logger)
                try await Self.log(
                    connection, .liftSuspension, moderator: moderator, user: id, post: nil, reason: reason,
                    logger: logger)
                changes.publish(.userRestored(user: id, username: Self.folded(username)))
            }
        }
    }

    public func moderationLog(page: PageRequest) async throws -> PageResult<ModerationEntry> {
        try await read { [logger] connection in
            let sql = SQL(
                """
                SELECT id, created_at, moderator, action, username, post_id, reason, domain, id FROM moderation_log
                WHERE true
                """)
            return try await PostRows.page(
                connection, sql, key: "id", descending: true, page: page, logger: logger,
                decode: { row in
                    let (id, createdAt, moderator, action, username, postID, reason, domain) = try row.decode(
                        (Int64, Double, String?, String, String?, Int64?, String, String?).self)
                    return ModerationEntry(
                        id: id, createdAt: Date(timeIntervalSince1970: createdAt), moderator: moderator,
                        action: action, username: username, postId: postID, reason: reason.isEmpty ? nil : reason,
                        domain: domain)
                })
        }
    }

    public func setDomainBlock(domain: String, severity: DomainBlockSeverity?, moderator: Int64, reason: String)
        async throws -> Bool
    {
        try await write { [logger] connection, changes in
            let old = try await connection.query(
                "SELECT severity FROM domain_blocks WHERE domain = \(domain) FOR UPDATE", logger: logger
            ).collect().first.map { try $0.decode(String.self) }.flatMap(DomainBlockSeverity.init(rawValue:))
            guard old != severity else { return false }
            if let severity {
                try await connection.query(
                    """
                    INSERT INTO domain_blocks (domain, severity, reason, created_at)
                    VALUES (\(domain), \(severity.rawValue), \(reason), \(Self.now))
                    ON CONFLICT (domain) DO UPDATE SET severity = excluded.severity, reason = excluded.reason,
                      created_at = excluded.created_at
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM domain_blocks WHERE domain = \(domain)", logger: logger)
            }
            let action: ModerationAction =
                switch severity {
                case .suspend: .suspendDomain
                case .limit: .limitDomain
                case nil: .unblockDomain
                }
            try await Self.log(
                connection, action, moderator: moderator, user: nil, post: nil, reason: reason, domain: domain,
                logger: logger)
            changes.publish(.domainBlockChanged(domain: domain, severity: severity))
            return true
        }
    }

    public func domainBlocks() async throws -> [DomainBlock] {
        try await read { [logger] connection in
            var blocks: [DomainBlock] = []
            for try await (domain, severity, reason, createdAt) in try await connection.query(
                "SELECT domain, severity, reason, created_at FROM domain_blocks ORDER BY created_at DESC, domain",
                logger: logger
            ).decode((String, String, String, Double).self) {
                guard let severity = DomainBlockSeverity(rawValue: severity) else { continue }
                blocks.append(
                    DomainBlock(
                        domain: domain, severity: severity, reason: reason.isEmpty ? nil : reason,
                        createdAt: Date(timeIntervalSince1970: createdAt)))
            }
            return blocks
        }
    }

    public func domainSeverity(ofHost host: String) -> DomainBlockSeverity? {
        caches.blockedDomains.severity(ofHost: host)
    }

    public var hiddenUsers: HiddenUsersSummary { caches.hiddenUsers.summary }

    public func privateUsersMedia() async throws -> Set<String> {
        try await files(Self.postFiles(of: "u.is_private"))
    }

    public func hiddenUsersMedia() async throws -> Set<String> {
        try await files(
            Self.postFiles(of: "u.status <> 'active'") + """

                UNION ALL
                SELECT m.full_file, m.thumb_file, m.variants FROM users u JOIN media_uploads m ON m.user_id = u.id
                WHERE u.status <> 'active'
                UNION ALL
                SELECT avatar_file, avatar_large_file, NULL FROM users WHERE status <> 'active'
                """)
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
    private func files(_ sql: String) async throws -> Set<String> {
        try await read { [logger] connection in
            var files = Set<String>()
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            for try await (first, second, variants) in rows.decode((String?, String?, String?).self) {
                for name in [first, second].compactMap({ $0 }) { files.insert(name) }
                for variant in StoredVariant.variants(column: variants) { files.insert(variant.fileName) }
            }
            return files
        }
    }
}
