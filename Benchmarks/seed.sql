-- Bulk data for the server benchmark: brings the database to 10,000 users, 100,000 posts and ~1,000,000 likes.
-- Users who already exist (the benchmark's signed-up clients) keep their ids; the triggers fill counts and feeds.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT (SELECT count(*) FROM users) + 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO users (username, display_name, password_hash, created_at)
SELECT 'member' || i, 'Member ' || i, '$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv', 1700000000 + i FROM n;

-- Everyone follows 30 others, spread deterministically.
WITH RECURSIVE u(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM u WHERE i < 10000),
  k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 30)
INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at)
SELECT i, ((i * 7919 + j * 104729) % 10000) + 1, 1700000000 FROM u, k
WHERE ((i * 7919 + j * 104729) % 10000) + 1 <> i;

WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < 100000)
INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height, thumb_file, thumb_width,
  thumb_height, variants, created_at)
SELECT (abs(random()) % 10000) + 1, 'Benchmark post number ' || i || ' with a caption of ordinary length #bench',
  1080, 720, printf('%032x.jpg', i), 1080, 720, printf('%032x.jpg', 1000000 + i), 320, 320,
  printf('320x213:%032x.webp 640x427:%032x.webp 1080x720:%032x.webp', 2000000 + i, 3000000 + i, 4000000 + i),
  1700000000 + i FROM p;

WITH RECURSIVE l(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM l WHERE i < 1000000)
INSERT OR IGNORE INTO likes (post_id, user_id, created_at)
SELECT (abs(random()) % 100000) + 1, (abs(random()) % 10000) + 1, 1700000000 + i FROM l;
COMMIT;
ANALYZE;
SELECT 'users ' || (SELECT count(*) FROM users) || ', posts ' || (SELECT count(*) FROM posts)
  || ', likes ' || (SELECT count(*) FROM likes) || ', feed rows ' || (SELECT count(*) FROM feed);
