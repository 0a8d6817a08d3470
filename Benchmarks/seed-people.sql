-- Bulk data for the people-search benchmark: brings the database to 100,000 users with ordinary names (50 first
-- names × 50 last names, then a number), each following 10 others. Search keys are written as the server writes
-- them (the names are ASCII: folding is lower-casing), so the FTS5 trigram index is filled by its trigger.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
CREATE TEMP TABLE first_names (i INTEGER PRIMARY KEY, name TEXT);
INSERT INTO first_names (name) VALUES ('Olivia'), ('Liam'), ('Emma'), ('Noah'), ('Amelia'), ('Oliver'), ('Ava'),
  ('Elijah'), ('Sophia'), ('Mateo'), ('Isabella'), ('Lucas'), ('Mia'), ('Levi'), ('Evelyn'), ('Asher'), ('Harper'),
  ('James'), ('Luna'), ('Leo'), ('Camila'), ('Grayson'), ('Gianna'), ('Ezra'), ('Elizabeth'), ('Luca'), ('Eleanor'),
  ('Ethan'), ('Ella'), ('Aiden'), ('Abigail'), ('Wyatt'), ('Sofia'), ('Sebastian'), ('Avery'), ('Benjamin'),
  ('Scarlett'), ('Mason'), ('Emily'), ('Henry'), ('Aria'), ('Hudson'), ('Penelope'), ('Jack'), ('Chloe'), ('Jackson'),
  ('Layla'), ('Owen'), ('Mila'), ('Daniel');
CREATE TEMP TABLE last_names (i INTEGER PRIMARY KEY, name TEXT);
INSERT INTO last_names (name) VALUES ('Smith'), ('Johnson'), ('Williams'), ('Brown'), ('Jones'), ('Garcia'),
  ('Miller'), ('Davis'), ('Rodriguez'), ('Martinez'), ('Hernandez'), ('Lopez'), ('Gonzalez'), ('Wilson'),
  ('Anderson'), ('Thomas'), ('Taylor'), ('Moore'), ('Jackson'), ('Martin'), ('Lee'), ('Perez'), ('Thompson'),
  ('White'), ('Harris'), ('Sanchez'), ('Clark'), ('Ramirez'), ('Lewis'), ('Robinson'), ('Walker'), ('Young'),
  ('Allen'), ('King'), ('Wright'), ('Scott'), ('Torres'), ('Nguyen'), ('Hill'), ('Flores'), ('Green'), ('Adams'),
  ('Nelson'), ('Baker'), ('Hall'), ('Rivera'), ('Campbell'), ('Mitchell'), ('Carter'), ('Roberts');
WITH RECURSIVE n(i) AS (SELECT (SELECT count(*) FROM users) + 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000),
  named AS (
    SELECT n.i, f.name AS first, l.name AS last FROM n
    JOIN first_names f ON f.i = (n.i * 7) % 50 + 1 JOIN last_names l ON l.i = (n.i * 13 / 50) % 50 + 1)
INSERT INTO users (username, display_name, password_hash, created_at, search_key)
SELECT lower(first) || '.' || lower(last) || i, first || ' ' || last,
  '$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv', 1700000000 + i,
  lower(first) || '.' || lower(last) || i || char(10) || lower(first || ' ' || last)
FROM named;

WITH RECURSIVE u(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM u WHERE i < 100000),
  k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 10)
INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at)
SELECT i, ((i * 7919 + j * 104729) % 100000) + 1, 1700000000 FROM u, k
WHERE ((i * 7919 + j * 104729) % 100000) + 1 <> i;
COMMIT;
ANALYZE;
SELECT 'users ' || (SELECT count(*) FROM users) || ', follows ' || (SELECT count(*) FROM follows);
