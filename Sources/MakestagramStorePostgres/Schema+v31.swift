import Foundation

extension Schema {
    /// Blocks of other servers: the moderators' (`domain_blocks`, for everyone, logged with the domain) and each
    /// user's own (`user_domain_blocks`), whose blocks of that server's people are marked with it (`blocks.domain`),
    /// so that lifting it lifts those and no block made one by one. SQLite's v27 is the same.
    static let v31 = """
        CREATE TABLE domain_blocks (
          domain text PRIMARY KEY,
          severity text NOT NULL CHECK (severity IN ('suspend', 'limit')),
          reason text NOT NULL DEFAULT '',
          created_at double precision NOT NULL
        );
        ALTER TABLE moderation_log ADD COLUMN domain text;
        CREATE TABLE user_domain_blocks (
          user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          domain text NOT NULL,
          created_at double precision NOT NULL,
          PRIMARY KEY (user_id, domain)
        );
        CREATE INDEX user_domain_blocks_domain ON user_domain_blocks(domain);
        ALTER TABLE blocks ADD COLUMN domain text;
        """
}
