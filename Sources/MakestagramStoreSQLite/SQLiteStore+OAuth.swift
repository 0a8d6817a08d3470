import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    static func oauthApp(_ row: Row) -> OAuthApp {
        let uris: String = row["redirect_uris"]
        return OAuthApp(
            id: row["id"], clientID: row["client_id"], secretHash: Array(row["secret_hash"] as Data),
            name: row["name"], website: row["website"],
            redirectURIs: uris.split(separator: "\n").map(String.init), scopes: row["scopes"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    public func createOAuthApp(_ app: NewOAuthApp) async throws -> OAuthApp {
        try await write { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    INSERT INTO oauth_apps (client_id, secret_hash, name, website, redirect_uris, scopes, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *
                    """,
                arguments: [
                    app.clientID, Data(app.secretHash), app.name, app.website,
                    app.redirectURIs.joined(separator: "\n"), app.scopes, Self.now,
                ])
            guard let row else { throw StoreError.notFound("app") }
            return Self.oauthApp(row)
        }
    }

    public func oauthApp(clientID: String) async throws -> OAuthApp? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM oauth_apps WHERE client_id = ?", arguments: [clientID])
                .map(Self.oauthApp)
        }
    }

    public func createAuthorizationCode(codeHash: [UInt8], grant: AuthorizationGrant, expiresAt: Date) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM oauth_codes WHERE expires_at < ?", arguments: [Self.now])
            try db.execute(
                sql: """
                    INSERT INTO oauth_codes (code_hash, app_id, user_id, redirect_uri, scopes, code_challenge,
                      expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(codeHash), grant.appID, grant.userID, grant.redirectURI, grant.scopes, grant.codeChallenge,
                    expiresAt.timeIntervalSince1970,
                ])
        }
    }

    public func redeemAuthorizationCode(codeHash: [UInt8]) async throws -> AuthorizationGrant? {
        try await write { db in
            try Row.fetchOne(
                db,
                sql: """
                    DELETE FROM oauth_codes WHERE code_hash = ? AND expires_at >= ?
                    RETURNING app_id, user_id, redirect_uri, scopes, code_challenge
                    """,
                arguments: [Data(codeHash), Self.now]
            ).map { row in
                AuthorizationGrant(
                    appID: row["app_id"], userID: row["user_id"], redirectURI: row["redirect_uri"],
                    scopes: row["scopes"], codeChallenge: row["code_challenge"])
            }
        }
    }

    public func createAppSession(userID: Int64, tokenHash: [UInt8], appID: Int64, scopes: String) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, user_id, created_at, last_used_at, app_id, scopes)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [Data(tokenHash), userID, Self.now, Self.now, appID, scopes])
        }
    }

    public func authorizedApps(userID: Int64) async throws -> [AuthorizedApp] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.id, a.name, a.website, group_concat(DISTINCT s.scopes) AS scopes,
                      max(s.created_at) AS authorized_at
                    FROM sessions s JOIN oauth_apps a ON a.id = s.app_id
                    WHERE s.user_id = ? GROUP BY a.id ORDER BY authorized_at DESC
                    """,
                arguments: [userID]
            ).map { row in
                let scopes: String = row["scopes"]
                return AuthorizedApp(
                    appID: row["id"], name: row["name"], website: row["website"],
                    scopes: Set(scopes.split(whereSeparator: { $0 == " " || $0 == "," })).sorted().joined(
                        separator: " "),
                    authorizedAt: Date(timeIntervalSince1970: row["authorized_at"]))
            }
        }
    }

    public func revokeApp(appID: Int64, userID: Int64) async throws -> Int {
        try await write { db in
            let ended = try Data.fetchAll(
                db, sql: "DELETE FROM sessions WHERE app_id = ? AND user_id = ? RETURNING token_hash",
                arguments: [appID, userID])
            for hash in ended { try publishOnCommit(db, .sessionEnded(tokenHash: Array(hash))) }
            return ended.count
        }
    }
}

extension SQLiteStore {
    public func createAppToken(tokenHash: [UInt8], appID: Int64, scopes: String) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO oauth_app_tokens (token_hash, app_id, scopes, created_at) VALUES (?, ?, ?, ?)",
                arguments: [Data(tokenHash), appID, scopes, Self.now])
        }
    }

    public func appToken(tokenHash: [UInt8]) async throws -> (app: OAuthApp, scopes: String)? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT a.*, t.scopes AS token_scopes FROM oauth_app_tokens t JOIN oauth_apps a ON a.id = t.app_id
                    WHERE t.token_hash = ?
                    """, arguments: [Data(tokenHash)]
            ).map { row in (Self.oauthApp(row), row["token_scopes"]) }
        }
    }

    public func deleteAppToken(tokenHash: [UInt8], appID: Int64) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM oauth_app_tokens WHERE token_hash = ? AND app_id = ?",
                arguments: [Data(tokenHash), appID])
        }
    }

    public func oauthApp(id: Int64) async throws -> OAuthApp? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM oauth_apps WHERE id = ?", arguments: [id]).map(Self.oauthApp)
        }
    }
}
