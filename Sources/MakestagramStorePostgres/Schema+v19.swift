import Foundation

extension Schema {
    /// One definition of a change record: `set_likes` no longer builds the records of the likes it writes; the
    /// statement that calls it does, in the same statement, with the JSON built from ``ChangeRecord``'s own keys
    /// (``ChangeRecord/sqlObject(_:_:)``), so Swift, the fast reader and the SQL cannot disagree on a name.
    static let v19 = """
        CREATE OR REPLACE FUNCTION set_likes(p_posts bigint[], p_users bigint[], p_liked boolean[], p_now double precision,
                                  p_any_post boolean DEFAULT false)
        RETURNS TABLE (item integer, changed boolean, like_count bigint, likers_preview text, version bigint,
                       username text, display_name text, avatar_file text, author_id bigint, hide_like_count boolean)
        LANGUAGE plpgsql AS $$
        DECLARE
          found bigint[];
          written_posts bigint[];
          written_users bigint[];
          changes boolean[];
        BEGIN
          -- The posts, then their authors, locked in ID order (the order every writer of a like, comment or post takes
          -- them in): two calls that share a row wait at the first they share, and never deadlock.
          -- Posts nobody may see (their author suspended or being deleted) are not found, unless p_any_post (an
          -- account being deleted takes back its likes wherever they are).
          SELECT array_agg(id) INTO found FROM (
            SELECT p.id FROM posts p WHERE p.id = ANY(p_posts)
              AND (p_any_post OR EXISTS (SELECT 1 FROM users a WHERE a.id = p.author_id AND a.status = 'active'))
            ORDER BY p.id FOR NO KEY UPDATE OF p) locked;
          PERFORM 1 FROM users WHERE id IN (SELECT p.author_id FROM posts p WHERE p.id = ANY(found))
            ORDER BY id FOR NO KEY UPDATE;
          -- Each (post, user) pair ends as its last toggle asks, in one statement for the whole call (new likes in the
          -- order given, so the likers preview shows the last first); the pairs whose row was written tell the state
          -- before. A pair that ends as it began keeps its row.
          WITH t AS (
            SELECT DISTINCT ON (post, usr) post, usr, liked, ord
            FROM unnest(p_posts, p_users, p_liked) WITH ORDINALITY AS t(post, usr, liked, ord)
            WHERE post = ANY(found) ORDER BY post, usr, ord DESC
          ), ins AS (
            INSERT INTO likes (post_id, user_id, created_at) SELECT post, usr, p_now FROM t WHERE liked ORDER BY post, ord
            ON CONFLICT DO NOTHING RETURNING post_id, user_id
          ), del AS (
            DELETE FROM likes l USING t WHERE NOT t.liked AND l.post_id = t.post AND l.user_id = t.usr
            RETURNING l.post_id, l.user_id
          )
          SELECT array_agg(w.post_id), array_agg(w.user_id) INTO written_posts, written_users
          FROM (SELECT * FROM ins UNION ALL SELECT * FROM del) w;
          -- Whether each toggle changed something, taken in the order given.
          SELECT array_agg(coalesce(c, false) ORDER BY o) INTO changes FROM (
            SELECT g.ord AS o, g.post = ANY(found) AND g.liked <> coalesce(
              lag(g.liked) OVER (PARTITION BY g.post, g.usr ORDER BY g.ord),
              CASE WHEN w.post IS NULL THEN g.last ELSE NOT g.last END) AS c
            FROM (SELECT t.*, last_value(t.liked) OVER (PARTITION BY t.post, t.usr ORDER BY t.ord
                    ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last
                  FROM unnest(p_posts, p_users, p_liked) WITH ORDINALITY AS t(post, usr, liked, ord)) g
            LEFT JOIN unnest(written_posts, written_users) AS w(post, usr) ON w.post = g.post AND w.usr = g.usr) x;
          -- A like and its unlike in the same call store nothing, but are two changes: the version counts every change.
          UPDATE posts p SET version = p.version + e.n FROM (
            SELECT t.post, count(*) FILTER (WHERE changes[t.ord]) - (
              SELECT count(*) FROM unnest(written_posts) w(post) WHERE w.post = t.post) AS n
            FROM unnest(p_posts) WITH ORDINALITY AS t(post, ord) GROUP BY t.post) e
          WHERE p.id = e.post AND e.n > 0;
          -- Each toggle's answer is the post as it was right after it: the state now, less what later toggles changed.
          RETURN QUERY
          WITH t AS (
            SELECT t.ord::integer AS ord, t.post, t.usr, t.liked, changes[t.ord] AS changed,
              CASE WHEN NOT changes[t.ord] THEN 0 WHEN t.liked THEN 1 ELSE -1 END AS delta
            FROM unnest(p_posts, p_users, p_liked) WITH ORDINALITY AS t(post, usr, liked, ord)
            WHERE t.post = ANY(found)
          ), r AS (
            SELECT t.ord, t.post, t.usr, t.liked, t.changed,
              p.like_count - coalesce(sum(t.delta) OVER later, 0) AS like_count,
              p.version - coalesce(count(*) FILTER (WHERE t.changed) OVER later, 0) AS version,
              p.likers_preview, u.username, u.display_name, u.avatar_file, p.author_id, p.hide_like_count
            FROM t JOIN posts p ON p.id = t.post JOIN users u ON u.id = t.usr
            WINDOW later AS (PARTITION BY t.post ORDER BY t.ord ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
          )
          SELECT r.ord, r.changed, r.like_count, r.likers_preview, r.version, r.username, r.display_name, r.avatar_file,
            r.author_id, r.hide_like_count FROM r ORDER BY r.ord;
        END $$;
        """
}
