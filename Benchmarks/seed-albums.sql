-- Albums for the album benchmark, on the data seed.sql made: every third post becomes an album of 5 (its own photo
-- first, then four more, each with its renditions and an alt text of ordinary length).
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE k(position) AS (SELECT 1 UNION ALL SELECT position + 1 FROM k WHERE position < 4)
INSERT INTO post_photos (post_id, position, width, height, full_file, full_width, full_height, thumb_file,
  thumb_width, thumb_height, variants, alt_text)
SELECT p.id, k.position, 1080, 720, printf('%032x.jpg', 10000000 * k.position + p.id), 1080, 720,
  printf('%032x.jpg', 10000000 * k.position + 5000000 + p.id), 320, 320,
  printf('320x213:%032x.webp 640x427:%032x.webp 1080x720:%032x.webp', 60000000 + 10000000 * k.position + p.id,
    61000000 + 10000000 * k.position + p.id, 62000000 + 10000000 * k.position + p.id),
  'Photo ' || (k.position + 1) || ' of the album: a street at dusk, lit by shop windows'
FROM posts p, k WHERE p.id % 3 = 0;
UPDATE posts SET photo_count = 5 WHERE id % 3 = 0;
COMMIT;
SELECT 'albums ' || (SELECT count(*) FROM posts WHERE photo_count > 1) || ' of ' || (SELECT count(*) FROM posts)
  || ' posts, photo rows ' || (SELECT count(*) FROM post_photos);
