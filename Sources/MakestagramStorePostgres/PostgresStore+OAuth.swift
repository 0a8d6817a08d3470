import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    static let appColumns = "id, client_id, secret_hash, name, website, redirect_uris, scopes, created_at"

    static func oauthApp(_ row: PostgresRow) throws -> OAuthApp {
        let (id, clientID, secret, name, website, uris, scopes, createdAt) = try row.decode(
            (Int64, String, Data, String, String?, String, String, Double).self)
        return OAuthApp(
            id: id, clientID: clientID, secretHash: Array(secret), name: name, website: website,
            redirectURIs: uris.split(separator: "\n").map(String.init), scopes: scopes,
            createdAt: Date(timeIntervalSince1970: createdAt))
    }

    public func createOAuthApp(_ app: NewOAuthApp) async throws -> OAuthApp {
        try await write { [logger] connection, _ in
            let rows = try await connection.query(
                """
                INSERT INTO oauth_apps (client_id, secret_hash, name, website, redirect_uris, scopes, created_at)
                VALUES (\(app.clientID), \(Data(app.secretHash)), \(app.name), \(app.website),
                  \(app.redirectURIs.joined(separator: "\n")), \(app.scopes), \(Self.now))
                RETURNING \(unescaped: Self.appColumns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("app") }
            return try Self.oauthApp(row)
        }
    }

    public func oauthApp(clientID: String) async throws -> OAuthApp? {
        try await read { [logger] connection in
            try await connection.query(
                "SELECT \(unescaped: Self.appColumns) FROM oauth_apps WHERE client_id = \(clientID)", logger: logger
            ).collect().first.map(Self.oauthApp)
        }
    }

    public func createAuthorizationCode(codeHash: [UInt8], grant: AuthorizationGrant, expiresAt: Date) async throws {
        try await write { [logger] connection, _ in
            try await connection.query("DELETE FROM oauth_codes WHERE expires_at < \(Self.now)", logger: logger)
            try await connection.query(
                """
                INSERT INTO oauth_codes (code_hash, app_id, user_id, redirect_uri, scopes, code_challenge, expires_at)
                VALUES (\(Data(codeHash)), \(grant.appID), \(grant.userID), \(grant.redirectURI), \(grant.scopes),
                  \(grant.codeChallenge), \(expiresAt.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    public func redeemAuthorizationCode(codeHash: [UInt8]) async throws -> AuthorizationGrant? {
        try await write { [logger] connection, _ in
            try await connection.query(
                """
                DELETE FROM oauth_codes WHERE code_hash = \(Data(codeHash)) AND expires_at >= \(Self.now)
                RETURNING app_id, user_id, redirect_uri, scopes, code_challenge
                """, logger: logger
            ).collect().first.map { row in
                let (app, user, redirect, scopes, challenge) = try row.decode(
                    (Int64, Int64, String, String, String?).self)
                return AuthorizationGrant(
                    appID: app, userID: user, redirectURI: redirect, scopes: scopes, codeChallenge: challenge)
            }
        }
    }

    public func createAppSession(userID: Int64, tokenHash: [UInt8], appID: Int64, scopes: String) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                """
                INSERT INTO sessions (token_hash, user_id, created_at, last_used_at, app_id, scopes)
                VALUES (\(Data(tokenHash)), \(userID), \(Self.now), \(Self.now), \(appID), \(scopes))
                """, logger: logger)
        }
    }

    public func authorizedApps(userID: Int64) async throws -> [AuthorizedApp] {
        try await read { [logger] connection in
            var apps: [AuthorizedApp] = []
            for try await (id, name, website, scopes, at) in try await connection.query(
                """
                SELECT a.id, a.name, a.website, string_agg(DISTINCT s.scopes, ' '), max(s.created_at)
                FROM sessions s JOIN oauth_apps a ON a.id = s.app_id
                WHERE s.user_id = \(userID) GROUP BY a.id ORDER BY 5 DESC
                """, logger: logger
            ).decode((Int64, String, String?, String, Double).self) {
                apps.append(
                    AuthorizedApp(
                        appID: id, name: name, website: website,
                        scopes: Set(scopes.split(separator: " ")).sorted().joined(separator: " "),
                        authorizedAt: Date(timeIntervalSince1970: at)))
            }
            return apps
        }
    }

    public func revokeApp(appID: Int64, userID: Int64) async throws -> Int {
        try await write { [logger] connection, changes in
            let ended = try await connection.query(
                "DELETE FROM sessions WHERE app_id = \(appID) AND user_id = \(userID) RETURNING token_hash",
                logger: logger
            ).collect()
            for row in ended { changes.publish(.sessionEnded(tokenHash: Array(try row.decode(Data.self)))) }
            return ended.count
        }
    }
}

extension PostgresStore {
    public func createAppToken(tokenHash: [UInt8], appID: Int64, scopes: String) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                """
                INSERT INTO oauth_app_tokens (token_hash, app_id, scopes, created_at)
                VALUES (\(Data(tokenHash)), \(appID), \(scopes), \(Self.now))
                """, logger: logger)
        }
    }

    public func appToken(tokenHash: [UInt8]) async throws -> (app: OAuthApp, scopes: String)? {
        try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT a.id, a.client_id, a.secret_hash, a.name, a.website, a.redirect_uris, a.scopes, a.created_at,
                  t.scopes
                FROM oauth_app_tokens t JOIN oauth_apps a ON a.id = t.app_id WHERE t.token_hash = \(Data(tokenHash))
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return nil }
            let (id, clientID, secret, name, website, uris, scopes, createdAt, granted) = try row.decode(
                (Int64, String, Data, String, String?, String, String, Double, String).self)
            let app = OAuthApp(
                id: id, clientID: clientID, secretHash: Array(secret), name: name, website: website,
                redirectURIs: uris.split(separator: "\n").map(String.init), scopes: scopes,
                createdAt: Date(timeIntervalSince1970: createdAt))
            return (app, granted)
        }
    }

    public func deleteAppToken(tokenHash: [UInt8], appID: Int64) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                "DELETE FROM oauth_app_tokens WHERE token_hash = \(Data(tokenHash)) AND app_id = \(appID)",
                logger: logger)
        }
    }

    public func oauthApp(id: Int64) async throws -> OAuthApp? {
        try await read { [logger] connection in
            try await connection.query(
                "SELECT \(unescaped: Self.appColumns) FROM oauth_apps WHERE id = \(id)", logger: logger
            ).collect().first.map(Self.oauthApp)
        }
    }
}
