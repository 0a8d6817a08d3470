-- Mutes for the mute benchmark, on the data seed.sql made: each of the 64 benchmark users (the first ids) mutes 1,000
-- members spread over everyone, as setMute would leave it: the mute rows, and the muted authors' posts out of the
-- muter's feed.
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 1000)
INSERT OR IGNORE INTO mutes (muter_id, muted_id, created_at)
SELECT u.id, ((u.id * 7919 + k.j * 104723) % 10000) + 1, 1700000000 FROM users u, k
WHERE u.username LIKE 'bench%' AND ((u.id * 7919 + k.j * 104723) % 10000) + 1 <> u.id;
DELETE FROM feed WHERE EXISTS (
  SELECT 1 FROM mutes m JOIN posts p ON p.author_id = m.muted_id
  WHERE m.muter_id = feed.user_id AND p.id = feed.post_id);
COMMIT;
ANALYZE;
SELECT 'mutes ' || (SELECT count(*) FROM mutes) || ' by ' || (SELECT count(DISTINCT muter_id) FROM mutes)
  || ' users, feed rows ' || (SELECT count(*) FROM feed);
