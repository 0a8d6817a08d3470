"""Times the people-search statement of SQLiteStore.searchUsers (copied here; keep in step) for one query on a
benchmark database, through the indexes it uses and, as the baseline, the same ranking over a scan of every user.
Prints "matches index_ms scan_ms" (medians of 20 runs, in-process, the page cache warm).
Usage: python3 Benchmarks/search-statements.py DATABASE QUERY"""
import sqlite3
import statistics
import sys
import time

CAP = 500  # PeopleSearch.candidateLimit
VIEWER = 1

RANK = """
ORDER BY CASE WHEN u.username = :query OR u.search_key = u.username || char(10) || :query THEN 0
    WHEN u.search_key GLOB :starts OR u.search_key GLOB :nameStarts OR u.search_key GLOB :wordStarts THEN 1
    ELSE 2 END,
  EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = :viewer AND f.followee_id = u.id) DESC,
  length(u.username), u.username
LIMIT 20"""

INDEXED = """
WITH candidates(id) AS (
  SELECT id FROM (SELECT rowid AS id FROM users_search WHERE search_key GLOB :contains LIMIT :cap)
  UNION SELECT id FROM (SELECT id FROM users WHERE username LIKE :prefix ESCAPE '\\' LIMIT :cap)
  UNION SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
    WHERE f.follower_id = :viewer AND fu.search_key GLOB :contains)
SELECT u.id FROM candidates c JOIN users u ON u.id = c.id""" + RANK

SCAN = "SELECT u.id FROM users u WHERE u.search_key GLOB :contains" + RANK

# Two characters: the pairs' index (user_bigrams) in place of the trigram index.
PAIRS = INDEXED.replace(
    "SELECT rowid AS id FROM users_search WHERE search_key GLOB :contains LIMIT :cap",
    "SELECT user_id AS id FROM user_bigrams WHERE gram = :query LIMIT :cap")

SHORT = """
WITH candidates(id) AS (
  SELECT id FROM (SELECT id FROM users WHERE username LIKE :prefix ESCAPE '\\' LIMIT :cap)
  UNION SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
    WHERE f.follower_id = :viewer AND fu.username LIKE :prefix ESCAPE '\\')
SELECT u.id FROM candidates c JOIN users u ON u.id = c.id
ORDER BY u.username <> :query,
  EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = :viewer AND f.followee_id = u.id) DESC,
  length(u.username), u.username
LIMIT 20"""

SHORT_SCAN = """
SELECT u.id FROM users u WHERE u.username || '' LIKE :prefix ESCAPE '\\'
ORDER BY u.username <> :query,
  EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = :viewer AND f.followee_id = u.id) DESC,
  length(u.username), u.username
LIMIT 20"""


def median_ms(db, sql, arguments):
    times = []
    for _ in range(20):
        start = time.perf_counter()
        db.execute(sql, arguments).fetchall()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    db = sqlite3.connect(sys.argv[1])
    query = sys.argv[2]
    glob = "".join(f"[{c}]" if c in "*?[" else c for c in query)
    like = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    arguments = {
        "contains": f"*{glob}*", "prefix": like + "%", "query": query, "starts": f"{glob}*",
        "nameStarts": f"*\n{glob}*", "wordStarts": f"* {glob}*", "viewer": VIEWER, "cap": CAP,
    }
    if len(query) < 2:
        matches = db.execute("SELECT count(*) FROM users WHERE username LIKE ? ESCAPE '\\'", (like + "%",)).fetchone()[0]
        index, scan = median_ms(db, SHORT, arguments), median_ms(db, SHORT_SCAN, arguments)
    elif len(query) < 3:
        matches = db.execute("SELECT count(*) FROM users WHERE search_key GLOB ?", (f"*{glob}*",)).fetchone()[0]
        index, scan = median_ms(db, PAIRS, arguments), median_ms(db, SCAN, arguments)
    else:
        matches = db.execute("SELECT count(*) FROM users WHERE search_key GLOB ?", (f"*{glob}*",)).fetchone()[0]
        index, scan = median_ms(db, INDEXED, arguments), median_ms(db, SCAN, arguments)
    print(f"{matches} {index:.2f} {scan:.2f}")


if __name__ == "__main__":
    main()
