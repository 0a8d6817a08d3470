import Foundation

extension Schema {
    /// One change log at the centre: activity is no longer written by triggers on likes, comments and follows but
    /// derived from the log by the activity consumer, in Swift (`ActivityRules` in MakestagramCore), the same for
    /// both stores. So an activity row is identified by what caused it (`source`), not by a foreign key to it (the
    /// like may be gone before its change is applied), and a mention is a kind. The statement triggers that keep each
    /// group's size and each user's unread count with the rows stay (a count and the rows it counts), without the
    /// change rows they wrote: whoever changes an unread count (the consumer, marking read) publishes it from Swift.
    /// `change_consumers` keeps where each durable consumer stands in the log: the oldest transaction that was still
    /// running when it last read, and the changes above it it has applied (`xid|seq:xid,…`).
    static let v18 = """
        DROP TRIGGER comments_activity ON comments;
        DROP TRIGGER follows_activity ON follows;
        DROP FUNCTION activity_caused();
        CREATE OR REPLACE FUNCTION likes_written() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          step bigint := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
        BEGIN
          -- Posts, then their authors, each in ID order: the order every writer of a like, comment or post takes them
          -- in. Once the posts are locked, the UPDATE (a statement of its own) sees every earlier liker's commit.
          PERFORM 1 FROM posts WHERE id IN (SELECT post_id FROM written_likes) ORDER BY id FOR NO KEY UPDATE;
          UPDATE posts p SET like_count = p.like_count + step * d.n, version = p.version + d.n,
            likers_preview = coalesce((
              SELECT string_agg(username, ' ' ORDER BY like_id DESC) FROM (
                SELECT u.username, l.id AS like_id FROM likes l JOIN users u ON u.id = l.user_id
                WHERE l.post_id = p.id ORDER BY l.id DESC LIMIT 3) newest), '')
            FROM (SELECT post_id, count(*) AS n FROM written_likes GROUP BY post_id) d WHERE p.id = d.post_id;
          RETURN NULL;
        END $$;
        CREATE OR REPLACE FUNCTION activity_written() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          step bigint := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
        BEGIN
          PERFORM 1 FROM users WHERE id IN (SELECT recipient_id FROM written_activity) ORDER BY id FOR NO KEY UPDATE;
          IF TG_OP = 'INSERT' THEN
            INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
              SELECT recipient_id, group_key, min(kind), min(post_id), max(id), count(*), sum(unread)
              FROM written_activity GROUP BY recipient_id, group_key ORDER BY recipient_id, group_key
              ON CONFLICT (recipient_id, group_key) DO UPDATE SET
                newest_id = greatest(activity_groups.newest_id, excluded.newest_id),
                size = activity_groups.size + excluded.size, unread = activity_groups.unread + excluded.unread;
          ELSE
            UPDATE activity_groups g SET size = g.size - d.n, unread = g.unread - d.u,
              newest_id = coalesce((SELECT max(a.id) FROM activity a
                WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key), g.newest_id)
              FROM (SELECT recipient_id, group_key, count(*) AS n, sum(unread) AS u FROM written_activity
                GROUP BY 1, 2) d
              WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key;
            DELETE FROM activity_groups g USING (SELECT DISTINCT recipient_id, group_key FROM written_activity) d
              WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key AND g.size = 0;
          END IF;
          UPDATE users u SET activity_unread = u.activity_unread + step * d.n
            FROM (SELECT recipient_id, sum(unread) AS n FROM written_activity GROUP BY recipient_id) d
            WHERE u.id = d.recipient_id AND d.n <> 0;
          RETURN NULL;
        END $$;
        CREATE OR REPLACE FUNCTION activity_read() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM users WHERE id IN (SELECT recipient_id FROM activity_before) ORDER BY id FOR NO KEY UPDATE;
          WITH read AS (
            SELECT b.recipient_id, b.group_key FROM activity_before b JOIN activity_after a ON a.id = b.id
            WHERE b.unread = 1 AND a.unread = 0
          ), grouped AS (
            UPDATE activity_groups g SET unread = g.unread - d.n
              FROM (SELECT recipient_id, group_key, count(*) AS n FROM read GROUP BY 1, 2) d
              WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key
          )
          UPDATE users u SET activity_unread = u.activity_unread - d.n
            FROM (SELECT recipient_id, count(*) AS n FROM read GROUP BY 1) d WHERE u.id = d.recipient_id;
          RETURN NULL;
        END $$;

        ALTER TABLE activity ADD COLUMN source text;
        UPDATE activity SET source = CASE kind WHEN 'like' THEN 'like:' || post_id || ':' || actor_id
          WHEN 'comment' THEN 'comment:' || comment_id ELSE 'follow:' || actor_id || ':' || recipient_id END;
        ALTER TABLE activity ALTER COLUMN source SET NOT NULL;
        CREATE UNIQUE INDEX activity_source ON activity(source);
        DROP INDEX activity_comment;
        ALTER TABLE activity DROP COLUMN like_id, DROP COLUMN follow_id;
        ALTER TABLE activity DROP CONSTRAINT activity_comment_id_fkey;
        ALTER TABLE activity DROP CONSTRAINT activity_kind_check;
        ALTER TABLE activity ADD CONSTRAINT activity_kind_check CHECK (kind IN ('like', 'comment', 'follow', 'mention'));
        CREATE INDEX activity_actor ON activity(actor_id);
        CREATE INDEX activity_post ON activity(post_id) WHERE post_id IS NOT NULL;
        CREATE INDEX activity_comment ON activity(comment_id) WHERE comment_id IS NOT NULL;

        CREATE TABLE change_consumers (name text PRIMARY KEY, position text NOT NULL);
        -- What is in the activity table now was derived from every change committed so far.
        INSERT INTO change_consumers (name, position)
          VALUES ('activity', pg_snapshot_xmin(pg_current_snapshot())::text || '|');
        """
}
