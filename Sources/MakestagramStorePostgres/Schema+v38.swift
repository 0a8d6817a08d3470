extension Schema {
    /// Each user's unread activity count moves from their row in `users` to a narrow table of its own, holding a row
    /// only while the count is above zero, as the SQLite store's v33.
    ///
    /// Every like, comment, follow and mention a person receives changes the count, and a `users` row is wide (names,
    /// password hash, bio, files, counts): each change wrote a new version of it. A row of `unread_activity` is a
    /// few dozen bytes. The statement triggers that keep the count with the activity rows (v18) are created again to
    /// write there; they still lock the recipients' `users` rows first, in ID order, as every writer of activity does.
    static let v38 = """
        CREATE TABLE unread_activity (
          user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          count bigint NOT NULL CHECK (count > 0)
        );
        INSERT INTO unread_activity (user_id, count) SELECT id, activity_unread FROM users WHERE activity_unread > 0;

        CREATE OR REPLACE FUNCTION activity_written() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM users WHERE id IN (SELECT recipient_id FROM written_activity) ORDER BY id FOR NO KEY UPDATE;
          IF TG_OP = 'INSERT' THEN
            INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
              SELECT recipient_id, group_key, min(kind), min(post_id), max(id), count(*), sum(unread)
              FROM written_activity GROUP BY recipient_id, group_key ORDER BY recipient_id, group_key
              ON CONFLICT (recipient_id, group_key) DO UPDATE SET
                newest_id = greatest(activity_groups.newest_id, excluded.newest_id),
                size = activity_groups.size + excluded.size, unread = activity_groups.unread + excluded.unread;
            INSERT INTO unread_activity (user_id, count)
              SELECT recipient_id, sum(unread) FROM written_activity GROUP BY recipient_id HAVING sum(unread) > 0
              ORDER BY recipient_id
              ON CONFLICT (user_id) DO UPDATE SET count = unread_activity.count + excluded.count;
          ELSE
            UPDATE activity_groups g SET size = g.size - d.n, unread = g.unread - d.u,
              newest_id = coalesce((SELECT max(a.id) FROM activity a
                WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key), g.newest_id)
              FROM (SELECT recipient_id, group_key, count(*) AS n, sum(unread) AS u FROM written_activity
                GROUP BY 1, 2) d
              WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key;
            DELETE FROM activity_groups g USING (SELECT DISTINCT recipient_id, group_key FROM written_activity) d
              WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key AND g.size = 0;
            DELETE FROM unread_activity u USING (SELECT recipient_id, sum(unread) AS n FROM written_activity
                GROUP BY recipient_id) d
              WHERE u.user_id = d.recipient_id AND u.count = d.n;
            UPDATE unread_activity u SET count = u.count - d.n
              FROM (SELECT recipient_id, sum(unread) AS n FROM written_activity GROUP BY recipient_id) d
              WHERE u.user_id = d.recipient_id AND d.n > 0;
          END IF;
          RETURN NULL;
        END $$;

        CREATE OR REPLACE FUNCTION activity_read() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM users WHERE id IN (SELECT recipient_id FROM activity_before) ORDER BY id FOR NO KEY UPDATE;
          UPDATE activity_groups g SET unread = g.unread - d.n
            FROM (SELECT b.recipient_id, b.group_key, count(*) AS n
              FROM activity_before b JOIN activity_after a ON a.id = b.id WHERE b.unread = 1 AND a.unread = 0
              GROUP BY 1, 2) d
            WHERE g.recipient_id = d.recipient_id AND g.group_key = d.group_key;
          DELETE FROM unread_activity u USING (SELECT b.recipient_id, count(*) AS n
              FROM activity_before b JOIN activity_after a ON a.id = b.id WHERE b.unread = 1 AND a.unread = 0
              GROUP BY 1) d
            WHERE u.user_id = d.recipient_id AND u.count = d.n;
          UPDATE unread_activity u SET count = u.count - d.n
            FROM (SELECT b.recipient_id, count(*) AS n
              FROM activity_before b JOIN activity_after a ON a.id = b.id WHERE b.unread = 1 AND a.unread = 0
              GROUP BY 1) d
            WHERE u.user_id = d.recipient_id;
          RETURN NULL;
        END $$;
        ALTER TABLE users DROP COLUMN activity_unread;
        """
}
