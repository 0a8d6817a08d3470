"""Times the statements the activity consumer runs for a like and for an unlike on SQLite (SQLiteStore.apply and
applyActivity's unread count, copied here; keep in step), on a copy of a benchmark database, with the schema as it
is and with parts of it taken away: the checks for mutes, blocks and remote recipients; the triggers that keep each
group's size and each user's unread count. Likes by the 64 benchmark users on random posts, 30 to a transaction as a
group commit carries them (synchronous off: this measures the statements, not the disk), then their unlikes.
Prints microseconds per like and per unlike for each variant, in-process (Python's sqlite3, the same library as the
server's), each variant on a fresh copy, the variants twice in turn.
Usage: python3 Benchmarks/activity-statements.py DATABASE [LIKES, default 12000]"""
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time

INSERT_CHECKED = """
INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread, created_at)
SELECT ?, ?, 'like', ?, NULL, ?, ?, 1, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
  AND NOT EXISTS (SELECT 1 FROM remote_actors WHERE user_id = ?)
  AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = ? AND muted_id = ?)
  AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)
  AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)
ON CONFLICT (source) DO NOTHING
RETURNING recipient_id, unread"""
INSERT_PLAIN = """
INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread, created_at)
VALUES (?, ?, 'like', ?, NULL, ?, ?, 1, ?)
ON CONFLICT (source) DO NOTHING
RETURNING recipient_id, unread"""
DELETE = "DELETE FROM activity WHERE source = ? RETURNING recipient_id, unread"
UNREAD = "SELECT count FROM unread_activity WHERE user_id = ?"
VARIANTS = {
    "as built": (True, False),
    "no checks": (False, False),
    "no count triggers": (True, True),
    "neither": (False, True),
}


def run(database, folder, name, likes):
    checked, untriggered = VARIANTS[name]
    path = os.path.join(folder, "copy.sqlite")
    shutil.copy(database, path)
    db = sqlite3.connect(path, isolation_level=None, cached_statements=16)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -16384")
    db.execute("PRAGMA foreign_keys = ON")  # as GRDB opens it
    if untriggered:
        db.execute("DROP TRIGGER activity_insert")
        db.execute("DROP TRIGGER activity_delete")
    posts = db.execute("SELECT max(id) FROM posts").fetchone()[0]
    users = db.execute("SELECT max(id) FROM users").fetchone()[0]
    chooser = random.Random(1)
    pairs = []
    for _ in range(likes):
        author, actor = chooser.randint(65, users), chooser.randint(1, 64)
        pairs.append((author, actor, chooser.randint(1, posts)))

    def insert_arguments(author, actor, post):
        source, group = f"like:{post}:{actor}", f"like:{post}:20421"
        if not checked:
            return (author, actor, post, source, group, 1.0)
        return (author, actor, post, source, group, 1.0, author, author, author, actor, author, actor, actor, author)

    insert = INSERT_CHECKED if checked else INSERT_PLAIN
    times = []
    for statement, arguments in (
        (insert, lambda p: insert_arguments(*p)),
        (DELETE, lambda p: (f"like:{p[2]}:{p[1]}",)),
    ):
        start = time.perf_counter()
        for first in range(0, likes, 30):
            db.execute("BEGIN")
            for pair in pairs[first : first + 30]:
                db.execute(statement, arguments(pair)).fetchall()
                db.execute(UNREAD, (pair[0],)).fetchall()
            db.execute("COMMIT")
        times.append((time.perf_counter() - start) / likes * 1e6)
    db.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return times


def main():
    database = sys.argv[1]
    likes = int(sys.argv[2]) if len(sys.argv) > 2 else 12000
    with tempfile.TemporaryDirectory() as folder:
        print("| variant | round | µs per like | µs per unlike |")
        print("|---|---|---|---|")
        for round in (1, 2):
            for name in VARIANTS:
                like, unlike = run(database, folder, name, likes)
                print(f"| {name} | {round} | {like:.1f} | {unlike:.1f} |")


main()
