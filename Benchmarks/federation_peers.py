"""Loopback peers for Benchmarks/federation.sh.

`serve`: one process answering as many servers: the likers' server (actor documents of l1…l100, one shared key) on
the first port, and `--servers` receiving servers on the following ports, each with a shared inbox that records when
each activity arrived (`GET /stats` on the first port reads them). With `--broken N`, the last N of them hold every
delivery 30 s before they answer (a server that answers every request after 30 s).

`sign`: writes pre-signed inbox requests (HTTP Signatures, rsa-sha256, as a peer would send them) for wrk to replay:
Likes of random posts by the 100 likers, each undone 512 requests later, as Benchmarks/toggle.lua toggles locally.
"""
import argparse
import base64
import hashlib
import json
import multiprocessing
import random
import time
from email.utils import formatdate

from aiohttp import web
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

LIKERS = 100


def key_files(folder: str):
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with open(f"{folder}/liker.pem", "wb") as out:
        out.write(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()))


def serve(arguments):
    with open(f"{arguments.folder}/liker.pem", "rb") as source:
        private = serialization.load_pem_private_key(source.read(), password=None)
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    origin = f"http://127.0.0.1:{arguments.port}"
    arrivals: dict[int, list[tuple[str, float]]] = {}

    async def actor(request):
        name = request.match_info["name"]
        actor_id = f"{origin}/users/{name}"
        return web.json_response({
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": actor_id, "type": "Person", "preferredUsername": name, "name": name,
            "inbox": actor_id + "/inbox", "endpoints": {"sharedInbox": origin + "/inbox"},
            "publicKey": {"id": actor_id + "#main-key", "owner": actor_id, "publicKeyPem": public_pem},
        }, content_type="application/activity+json")

    async def stats(request):
        return web.json_response({str(port): items for port, items in arrivals.items()})

    async def reset(request):
        arrivals.clear()
        return web.json_response({})

    def inbox_for(port, broken=False):
        async def inbox(request):
            if broken:
                await __import__("asyncio").sleep(30)
            body = await request.read()
            activity = json.loads(body)
            arrivals.setdefault(port, []).append((activity.get("id", ""), time.time()))
            return web.Response(status=202)
        return inbox

    async def main():
        first = web.Application()
        first.router.add_get("/users/{name}", actor)
        first.router.add_post("/inbox", inbox_for(arguments.port))
        first.router.add_get("/stats", stats)
        first.router.add_post("/reset", reset)
        runners = []
        runner = web.AppRunner(first, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", arguments.port).start()
        runners.append(runner)
        for index in range(1, arguments.servers + 1):
            app = web.Application()
            broken = index > arguments.servers - arguments.broken
            app.router.add_post("/inbox", inbox_for(arguments.port + index, broken))
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", arguments.port + index).start()
            runners.append(runner)
        print("ready", flush=True)
        while True:
            await __import__("asyncio").sleep(3600)

    __import__("asyncio").run(main())


def sign_chunk(job):
    folder, origin, public, host, items = job
    with open(f"{folder}/liker.pem", "rb") as source:
        private = serialization.load_pem_private_key(source.read(), password=None)
    date = formatdate(usegmt=True)
    lines = []
    for activity in items:
        body = json.dumps(activity, separators=(",", ":"))
        digest = "SHA-256=" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        text = f"(request-target): post /inbox\nhost: {host}\ndate: {date}\ndigest: {digest}"
        signature = base64.b64encode(private.sign(text.encode(), padding.PKCS1v15(), hashes.SHA256())).decode()
        header = (f'keyId="{activity["actor"]}#main-key",algorithm="rsa-sha256",'
                  f'headers="(request-target) host date digest",signature="{signature}"')
        lines.append("\t".join([body, date, digest, header]))
    return lines


def sign(arguments):
    origin = f"http://127.0.0.1:{arguments.peer_port}"
    random.seed(7)
    activities, pending = [], []
    for n in range(arguments.count):
        if n % 2 == 1 and len(pending) >= 512:
            like = pending.pop(0)
            activities.append({"@context": "https://www.w3.org/ns/activitystreams", "id": like["id"] + "/undo",
                               "type": "Undo", "actor": like["actor"], "object": like})
        else:
            actor = f"{origin}/users/l{random.randint(1, LIKERS)}"
            like = {"id": f"{origin}/likes/{n}", "type": "Like", "actor": actor,
                    "object": f"{arguments.public}/p/{random.randint(1, arguments.posts)}"}
            pending.append(like)
            activities.append({"@context": "https://www.w3.org/ns/activitystreams", **like})
    host = arguments.public.split("://", 1)[1]
    chunks = [activities[i:i + 2000] for i in range(0, len(activities), 2000)]
    with multiprocessing.Pool() as pool:
        results = pool.map(sign_chunk, [(arguments.folder, origin, arguments.public, host, c) for c in chunks])
    with open(arguments.out, "w") as out:
        for lines in results:
            for line in lines:
                out.write(line + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    keys = commands.add_parser("keys")
    keys.add_argument("--folder", required=True)
    server = commands.add_parser("serve")
    server.add_argument("--folder", required=True)
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--servers", type=int, default=100)
    server.add_argument("--broken", type=int, default=0)
    signer = commands.add_parser("sign")
    signer.add_argument("--folder", required=True)
    signer.add_argument("--peer-port", type=int, required=True)
    signer.add_argument("--public", required=True)
    signer.add_argument("--posts", type=int, default=100000)
    signer.add_argument("--count", type=int, required=True)
    signer.add_argument("--out", required=True)
    parsed = parser.parse_args()
    if parsed.command == "keys":
        key_files(parsed.folder)
    elif parsed.command == "serve":
        serve(parsed)
    else:
        sign(parsed)
