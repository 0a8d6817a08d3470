"""A small fediverse server for the federation tests, written on bovine (an ActivityPub library from PyPI) and
aiohttp: bovine's HTTP Signatures code signs every request it sends and verifies every request it receives, and
bovine's digest and date checks decide what it accepts. Nothing of Makestagram's own code is used here.

It serves WebFinger and an actor document for each of its people, takes signed activities at their inboxes and at a
shared inbox, and has a control API under /control for the tests: make a person, send an activity as them (signed
properly, or broken on purpose), fetch a document signed as them, and read what arrived.

    python3 peer.py --host 127.0.0.5 --port 80 --name peer.test
"""
import argparse
import asyncio
import json
import logging
import pathlib
import struct
import zlib
from datetime import datetime, timedelta, timezone

import aiohttp
from aiohttp import web
from bovine.clients.signed_http import legacy_digest_method
from bovine.clients.signed_http_methods import signed_get, signed_post
from bovine.crypto import generate_rsa_public_private_key
from bovine.crypto.helper import content_digest_sha256
from bovine.crypto.http_signature import build_signature
from bovine.crypto.signature_checker import SignatureChecker
from bovine.crypto.types import CryptographicIdentifier, CryptographicSecret
from bovine.utils import GMT_STRING

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"
AS_CONTEXT = ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"]


class Peer:
    def __init__(self, name: str, stall: bool = False, failing: bool = False):
        self.name = name
        self.stall = stall
        self.failing = failing
        # Deliveries taken and not answered yet (a stalling server's).
        self.open = 0
        # Deliveries answered 503 (a failing server's).
        self.failed = 0
        # Bytes of /huge.jpg written before the reader hung up.
        self.huge_sent = 0
        # How many times each photo under /media was asked for.
        self.media_served: dict[str, int] = {}
        self.base = f"http://{name}"
        self.people: dict[str, dict] = {}
        self.received: list[dict] = []
        self.refused: list[dict] = []
        self.session: aiohttp.ClientSession | None = None

    def actor_id(self, username: str) -> str:
        return f"{self.base}/users/{username}"

    def secret(self, username: str) -> CryptographicSecret:
        return CryptographicSecret.from_pem(self.actor_id(username) + "#main-key", self.people[username]["private"])

    def make_person(self, username: str, display_name: str, locked: bool = False) -> dict:
        public, private = generate_rsa_public_private_key()
        self.people[username] = {"public": public, "private": private, "name": display_name, "locked": locked}
        return self.actor(username)

    def actor(self, username: str) -> dict:
        person = self.people[username]
        actor = self.actor_id(username)
        return {
            "@context": AS_CONTEXT, "id": actor, "type": "Person", "preferredUsername": username,
            "name": person["name"], "summary": f"<p>{person['name']} on {self.name}</p>",
            "inbox": actor + "/inbox", "outbox": actor + "/outbox", "followers": actor + "/followers",
            "following": actor + "/following", "endpoints": {"sharedInbox": self.base + "/inbox"},
            "url": f"{self.base}/@{username}", "manuallyApprovesFollowers": person.get("locked", False),
            "publicKey": {"id": actor + "#main-key", "owner": actor, "publicKeyPem": person["public"]},
            "icon": {"type": "Image", "mediaType": "image/jpeg", "url": f"{self.base}/media/astronaut.jpg"},
        }

    async def key(self, key_id: str) -> CryptographicIdentifier | None:
        """Fetches the document a keyId names (signed, as the first person here), for bovine's checker."""
        signer = self.secret(next(iter(self.people)))
        async with await signed_get(self.session, signer, key_id.split("#")[0]) as response:
            if response.status != 200:
                return None
            document = json.loads(await response.read())
        key = document.get("publicKey") or {}
        if key.get("id") != key_id:
            return None
        return CryptographicIdentifier.from_pem(key["publicKeyPem"], key["owner"])

    # Routes

    async def webfinger(self, request: web.Request) -> web.Response:
        resource = request.query.get("resource", "")
        username = resource.removeprefix("acct:").split("@")[0]
        if username not in self.people or not resource.endswith("@" + self.name):
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response({
            "subject": f"acct:{username}@{self.name}",
            "links": [{"rel": "self", "type": "application/activity+json", "href": self.actor_id(username)}],
        }, content_type="application/jrd+json")

    async def get_actor(self, request: web.Request) -> web.StreamResponse:
        username = request.match_info["username"]
        if username not in self.people:
            return web.json_response({"error": "not found"}, status=404)
        if username.startswith("slow"):
            # A document that never finishes: a byte now and then, until the reader gives up.
            response = web.StreamResponse(headers={"Content-Type": "application/activity+json"})
            await response.prepare(request)
            await response.write(b"{")
            while request.transport is not None and not request.transport.is_closing():
                await asyncio.sleep(0.2)
                await response.write(b" ")
            return response
        return web.json_response(self.actor(username), content_type="application/activity+json")

    async def bomb(self, request: web.Request) -> web.Response:
        """A PNG whose header says 9,000 × 9,000 (81 megapixels) in a few hundred bytes."""
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        header = struct.pack(">IIBBBBB", 9000, 9000, 8, 2, 0, 0, 0)
        rows = zlib.compress(b"\x00" + b"\x00" * 9000 * 3 * 4)
        body = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
        return web.Response(body=body, content_type="image/png")

    async def huge(self, request: web.Request) -> web.StreamResponse:
        """A JPEG that goes on for 2 GiB, sent as it is read (no length given), counting what was written."""
        response = web.StreamResponse(headers={"Content-Type": "image/jpeg"})
        await response.prepare(request)
        block = b"\xff\xd8\xff\xe0" + b"\x00" * ((1 << 20) - 4)
        try:
            while self.huge_sent < 2 << 30:
                await response.write(block)
                self.huge_sent += len(block)
                block = b"\x00" * (1 << 20)
        except (ConnectionResetError, RuntimeError, OSError):
            pass
        return response

    async def media(self, request: web.Request) -> web.StreamResponse:
        path = PHOTOS / request.match_info["name"]
        if path.parent != PHOTOS or not path.is_file():
            return web.Response(status=404)
        self.media_served[path.name] = self.media_served.get(path.name, 0) + 1
        return web.FileResponse(path, headers={"Content-Type": "image/jpeg"})

    async def inbox(self, request: web.Request) -> web.Response:
        body = await request.read()
        if self.stall:
            # A server that takes deliveries and never answers; the sender gives up and closes.
            self.open += 1
            try:
                while request.transport is not None and not request.transport.is_closing():
                    await asyncio.sleep(0.05)
            finally:
                self.open -= 1
            return web.Response(status=202)
        if self.failing:
            # A server that is down behind its proxy: every delivery answered 503.
            self.failed += 1
            return web.Response(status=503)

        async def read_body():
            return body

        checker = SignatureChecker(self.key)
        owner = await checker.validate_signature(request.method, str(request.url), request.headers, read_body)
        activity = json.loads(body or b"{}")
        if owner is None or owner != activity.get("actor"):
            self.refused.append({"path": request.path, "activity": activity, "owner": owner})
            return web.json_response({"error": "signature"}, status=401)
        self.received.append({"path": request.path, "activity": activity})
        return web.Response(status=202)

    # Control

    async def control_person(self, request: web.Request) -> web.Response:
        data = await request.json()
        return web.json_response(self.make_person(data["username"], data.get("name", data["username"]),
                                                   data.get("locked", False)))

    async def control_send(self, request: web.Request) -> web.Response:
        """Sends `activity` to `inbox` as `username`; `broken` breaks it on purpose: `unsigned`, `digest` (the body
        changed after signing), `date` (signed 13 hours ago), `key` (signed by another person here)."""
        data = await request.json()
        username, inbox, activity = data["username"], data["inbox"], data["activity"]
        body = json.dumps(activity)
        broken = data.get("broken")
        if broken is None:
            async with await signed_post(self.session, self.secret(username), inbox, body,
                                         digest_method=legacy_digest_method) as response:
                return web.json_response({"status": response.status, "body": await response.text()})
        signer = self.secret(data.get("signer", username))
        date = datetime.now(tz=timezone.utc)
        if broken == "date":
            date -= timedelta(hours=13)
        date_header = date.strftime(GMT_STRING)
        signed_body = body.encode()
        sent_body = signed_body
        if broken == "digest":
            sent_body = json.dumps({**activity, "id": activity["id"] + "-changed"}).encode()
        digest = content_digest_sha256(signed_body)
        url = aiohttp.helpers.URL(inbox)
        signature = (build_signature(url.raw_authority, "post", url.raw_path)
                     .with_field("date", date_header).with_field("digest", digest))
        headers = {"content-type": "application/activity+json", "date": date_header, "digest": digest}
        if broken != "unsigned":
            headers["signature"] = signature.sign_for_http_draft(signer)
        async with self.session.post(inbox, data=sent_body, headers=headers) as response:
            return web.json_response({"status": response.status, "body": await response.text()})

    async def control_fetch(self, request: web.Request) -> web.Response:
        data = await request.json()
        async with await signed_get(self.session, self.secret(data["username"]), data["url"]) as response:
            text = await response.text()
            return web.json_response({"status": response.status, "body": text})

    async def control_received(self, request: web.Request) -> web.Response:
        return web.json_response({"received": self.received, "refused": self.refused, "open": self.open,
                                  "failed": self.failed, "huge_sent": self.huge_sent,
                                  "media_served": self.media_served})

    def app(self) -> web.Application:
        app = web.Application(client_max_size=1 << 20)
        app.router.add_get("/.well-known/webfinger", self.webfinger)
        app.router.add_get("/users/{username}", self.get_actor)
        app.router.add_post("/users/{username}/inbox", self.inbox)
        app.router.add_get("/media/{name}", self.media)
        app.router.add_get("/bomb.png", self.bomb)
        app.router.add_get("/huge.jpg", self.huge)
        app.router.add_post("/inbox", self.inbox)
        app.router.add_post("/control/person", self.control_person)
        app.router.add_post("/control/send", self.control_send)
        app.router.add_post("/control/fetch", self.control_fetch)
        app.router.add_get("/control/received", self.control_received)

        async def session(app):
            self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
            yield
            await self.session.close()

        app.cleanup_ctx.append(session)
        return app


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--stall", action="store_true", help="never answer at the inboxes")
    parser.add_argument("--failing", action="store_true", help="answer 503 at the inboxes")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    web.run_app(Peer(arguments.name, stall=arguments.stall, failing=arguments.failing).app(), host=arguments.host, port=arguments.port,
                print=lambda text: print(text, flush=True))


if __name__ == "__main__":
    main()
