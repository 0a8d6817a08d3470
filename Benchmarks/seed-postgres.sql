-- Bulk data for the PostgreSQL benchmark: the same shape as seed.sql (10,000 users following 30 each, 100,000 posts,
-- ~1,000,000 likes). Row triggers are off while loading (session_replication_role = replica, which needs a superuser:
-- the benchmark's throwaway server); the counts, likers previews and feed they would keep are computed in bulk after.
SET session_replication_role = replica;
BEGIN;
INSERT INTO users (username, display_name, password_hash, created_at)
SELECT 'member' || i, 'Member ' || i, '$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv', 1700000000 + i
FROM generate_series((SELECT count(*) FROM users) + 1, 10000) i;

INSERT INTO follows (follower_id, followee_id, created_at)
SELECT i, ((i * 7919 + j * 104729) % 10000) + 1, 1700000000
FROM generate_series(1, 10000) i, generate_series(1, 30) j
WHERE ((i * 7919 + j * 104729) % 10000) + 1 <> i
ON CONFLICT DO NOTHING;

INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height, thumb_file, thumb_width,
  thumb_height, variants, created_at)
SELECT (random() * 9999)::bigint + 1, 'Benchmark post number ' || i || ' with a caption of ordinary length #bench',
  1080, 720, lpad(to_hex(i), 32, '0') || '.jpg', 1080, 720, lpad(to_hex(1000000 + i), 32, '0') || '.jpg', 320, 320,
  '320x213:' || lpad(to_hex(2000000 + i), 32, '0') || '.webp 640x427:' || lpad(to_hex(3000000 + i), 32, '0')
    || '.webp 1080x720:' || lpad(to_hex(4000000 + i), 32, '0') || '.webp',
  1700000000 + i
FROM generate_series(1, 100000) i;

INSERT INTO likes (post_id, user_id, created_at)
SELECT (random() * 99999)::bigint + 1, (random() * 9999)::bigint + 1, 1700000000 + i
FROM generate_series(1, 1000000) i
ON CONFLICT DO NOTHING;

UPDATE users u SET post_count = c.n FROM (SELECT author_id, count(*) n FROM posts GROUP BY 1) c WHERE u.id = c.author_id;
UPDATE users u SET following_count = c.n FROM (SELECT follower_id, count(*) n FROM follows GROUP BY 1) c
  WHERE u.id = c.follower_id;
UPDATE users u SET follower_count = c.n FROM (SELECT followee_id, count(*) n FROM follows GROUP BY 1) c
  WHERE u.id = c.followee_id;
UPDATE posts p SET like_count = s.n, version = 1 + s.n, likers_preview = s.names FROM (
    SELECT l.post_id, count(*) n, array_to_string((array_agg(u.username ORDER BY l.id DESC))[1:3], ' ') names
    FROM likes l JOIN users u ON u.id = l.user_id GROUP BY l.post_id) s
  WHERE p.id = s.post_id;
INSERT INTO feed (user_id, post_id)
SELECT author_id, id FROM posts
UNION SELECT f.follower_id, p.id FROM follows f JOIN posts p ON p.author_id = f.followee_id
ON CONFLICT DO NOTHING;
COMMIT;
SET session_replication_role = origin;
VACUUM ANALYZE;
SELECT 'users ' || (SELECT count(*) FROM users) || ', posts ' || (SELECT count(*) FROM posts)
  || ', likes ' || (SELECT count(*) FROM likes) || ', feed rows ' || (SELECT count(*) FROM feed);
