-- Blocks and mutes for the safety benchmark, on the data seed.sql made: each of the 64 benchmark users (the first
-- ids) blocks 1,000 members and mutes 1,000 others, spread over everyone, as setBlock and setMute would leave it:
-- the rows; the follows between each blocker and those they block gone both ways (the triggers keep the counts and
-- the feeds); the blocked members' likes and comments on the blocker's posts gone (the triggers keep the counts);
-- the muted authors' posts out of the muter's feed. Their likes and comments on everyone else's posts stay: each
-- viewer's likers previews and comments leave them out as they are read.
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 1000)
INSERT OR IGNORE INTO blocks (blocker_id, blocked_id, created_at)
SELECT u.id, ((u.id * 7919 + k.j * 104723) % 10000) + 1, 1700000000 FROM users u, k
WHERE u.username LIKE 'bench%' AND ((u.id * 7919 + k.j * 104723) % 10000) + 1 <> u.id;
WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 1000)
INSERT OR IGNORE INTO mutes (muter_id, muted_id, created_at)
SELECT u.id, ((u.id * 7907 + k.j * 104729 + 5003) % 10000) + 1, 1700000000 FROM users u, k
WHERE u.username LIKE 'bench%' AND ((u.id * 7907 + k.j * 104729 + 5003) % 10000) + 1 <> u.id
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = u.id
    AND b.blocked_id = ((u.id * 7907 + k.j * 104729 + 5003) % 10000) + 1);
DELETE FROM follows WHERE EXISTS (
  SELECT 1 FROM blocks b WHERE (b.blocker_id = follows.follower_id AND b.blocked_id = follows.followee_id)
    OR (b.blocker_id = follows.followee_id AND b.blocked_id = follows.follower_id));
DELETE FROM likes WHERE EXISTS (
  SELECT 1 FROM blocks b JOIN posts p ON p.author_id = b.blocker_id
  WHERE b.blocked_id = likes.user_id AND p.id = likes.post_id);
DELETE FROM comments WHERE EXISTS (
  SELECT 1 FROM blocks b JOIN posts p ON p.author_id = b.blocker_id
  WHERE b.blocked_id = comments.author_id AND p.id = comments.post_id);
DELETE FROM feed WHERE EXISTS (
  SELECT 1 FROM mutes m JOIN posts p ON p.author_id = m.muted_id
  WHERE m.muter_id = feed.user_id AND p.id = feed.post_id);
COMMIT;
ANALYZE;
SELECT (SELECT count(*) FROM blocks) || ' blocks and ' || (SELECT count(*) FROM mutes) || ' mutes by '
  || (SELECT count(DISTINCT blocker_id) FROM blocks) || ' users'
