import Foundation

extension Schema {
    /// Federation: people of other servers among the users (named `user@host`, which the username rule now allows
    /// beside local names), what is known of them (`remote_actors`), the keys local actors sign with (`actor_keys`)
    /// and the activities other servers sent (`inbound_activities`). SQLite's v23 is the same.
    static let v27 = """
        ALTER TABLE users DROP CONSTRAINT users_username_check;
        ALTER TABLE users ADD CONSTRAINT users_username_check CHECK (
          (char_length(username) BETWEEN 3 AND 30 AND username !~ '[^a-z0-9_.]')
          OR (char_length(username) BETWEEN 3 AND 320 AND username ~ '^[^@]+@[^@]+$' AND username !~ '[^a-z0-9_.@:-]'));
        CREATE TABLE remote_actors (
          user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          uri text NOT NULL UNIQUE,
          inbox text NOT NULL,
          shared_inbox text,
          key_id text NOT NULL,
          public_key_pem text NOT NULL,
          profile_url text,
          fetched_at double precision NOT NULL
        );
        CREATE INDEX remote_actors_key ON remote_actors(key_id);
        CREATE TABLE actor_keys (
          user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          private_key bytea NOT NULL
        );
        CREATE TABLE inbound_activities (
          id text PRIMARY KEY,
          actor_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          kind text NOT NULL CHECK (kind IN ('follow', 'like', 'comment')),
          object_id bigint NOT NULL,
          received_at double precision NOT NULL
        );
        CREATE INDEX inbound_activities_actor ON inbound_activities(actor_id);
        """
}
