"""A crash in the middle of writes, on the SQLite store: kill -9 during a like storm, then a restart on the same data
folder. Every acknowledged like is stored, the count equals the rows, and what is derived from the change log (the
author's unread count and activity) catches up with the rows: the activity consumer resumes from its durable
position and applies nothing twice."""
import shutil

import requests

from makestagram_server import (ROOT, Server, assert_acknowledged_likes_stored, like_storm,
                               wait_for_derived_activity)

PHOTO = ROOT / "Tests" / "TestFixtures" / "photos" / "chelsea.jpg"


def headers(token: str) -> dict:
    return {"Authorization": "Bearer " + token}


def test_kill_9_during_a_like_storm_loses_nothing_acknowledged_and_activity_catches_up():
    server = Server("--rate-limit", "all=off")
    data = str(server.folder / "data")
    restarted = None
    try:
        author = headers(server.sign_up("author"))
        with open(PHOTO, "rb") as photo:
            post = requests.post(server.base + "/api/v1/posts", headers=author, files={"image": photo}, timeout=60)
        assert post.status_code == 201, post.text
        post_id = post.json()["id"]
        likers = [headers(server.sign_up(f"liker{index}")) for index in range(12)]

        acknowledged, uncertain = like_storm(server.base, post_id, likers, 1.5, during=server.kill)
        assert acknowledged, "no like was acknowledged before the kill"

        restarted = Server("--rate-limit", "all=off", data=data)
        base = restarted.base
        stored = assert_acknowledged_likes_stored(base, author, post_id, acknowledged, uncertain)
        wait_for_derived_activity(base, author, post_id, len(stored))

        # And the consumer goes on from there: one more like is derived once.
        newcomer = headers(restarted.sign_up("newcomer"))
        requests.put(f"{base}/api/v1/posts/{post_id}/like", headers=newcomer, timeout=30).raise_for_status()
        wait_for_derived_activity(base, author, post_id, len(stored) + 1)
    finally:
        server.kill()
        server.log.close()
        if restarted:
            restarted.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
