"""Two instances of one Makestagram server on PostgreSQL share the deliveries: whichever instance a post is made on,
and whichever sends it, the peer gets each activity once."""
import collections
import os
import secrets
import shutil
import subprocess
import tempfile
import urllib.parse

import pytest
import requests

from federation_support import FederatedServer, HostNames, Peer, eventually, free_loopback_address
from test_federation_with_peer import PHOTOS, activity_id

POSTGRES = os.environ.get("MAKESTAGRAM_TEST_POSTGRES")
pytestmark = pytest.mark.skipif(not POSTGRES, reason="needs PostgreSQL")


@pytest.fixture
def cluster():
    name = "federation_" + secrets.token_hex(4)
    subprocess.run(["psql", POSTGRES, "-qc", f"CREATE DATABASE {name}"], check=True)
    url = urllib.parse.urlsplit(POSTGRES)._replace(path="/" + name, query="sslmode=disable").geturl()
    media = tempfile.mkdtemp(prefix="makestagram-federation-media-")
    names = HostNames()
    started = []
    try:
        first, second, peer_address = free_loopback_address(), free_loopback_address(), free_loopback_address()
        names.add("mk-a.test", first)
        names.add("peer.test", peer_address)
        flags = ("--database", url, "--rate-limit", "all=off")
        started.append(FederatedServer("mk-a.test", first, *flags, data=media))
        started.append(FederatedServer("mk-a.test", second, *flags, data=media))
        started.append(Peer("peer.test", peer_address))
        yield started
    finally:
        for server in started:
            server.stop()
        names.remove()
        shutil.rmtree(media, ignore_errors=True)
        subprocess.run(["psql", POSTGRES, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def test_two_instances_deliver_each_post_once(cluster):
    one, two, peer = cluster
    alice = one.sign_up("alice")
    peer.person("bob", "Bob Peer")
    follow = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/bob",
              "object": "http://mk-a.test/users/alice"}
    assert peer.send("bob", "http://mk-a.test/users/alice/inbox", follow)["status"] == 202
    assert eventually(lambda: any(item["activity"]["type"] == "Accept" for item in peer.received()["received"]))

    made = []
    for index in range(12):
        # Every other post is made on the second instance, reached at its own address.
        base = one.base if index % 2 == 0 else f"http://{two.address}"
        with open(PHOTOS / "chelsea.jpg", "rb") as photo:
            answer = requests.post(base + "/api/v1/posts", headers=alice, files={"image": photo},
                                   data={"caption": f"Post {index}"}, timeout=60)
        assert answer.status_code == 201, answer.text
        made.append(f"http://mk-a.test/p/{answer.json()['id']}")

    def creates():
        return collections.Counter(item["activity"]["object"]["id"] for item in peer.received()["received"]
                                   if item["activity"]["type"] == "Create")
    assert eventually(lambda: set(creates()) == set(made), timeout=30), creates()
    # Time for a second copy to arrive, were one sent.
    eventually(lambda: False, timeout=3)
    assert all(count == 1 for count in creates().values()), creates()
    accepts = [item for item in peer.received()["received"] if item["activity"]["type"] == "Accept"]
    assert len(accepts) == 1
