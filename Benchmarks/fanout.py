"""Fan-out of one post to 100 loopback servers (federation.sh): 10 posts by bench1, one at a time.

  fanout.py deliver BASE TOKEN PEER_PORT PID
      posts, and waits after each answer until every server has it; prints the median and slowest time until then
      (ms), the servers reached, the copies per server, and for each post the window's length (ms) and the server's
      CPU in it (µs), comma-separated.
  fanout.py reach BASE TOKEN PEER_PORT PID NEED
      the same, waiting each time until NEED servers have the post (one of 100 may be broken); prints the median and
      slowest time until then (ms), and the fewest servers reached.
  fanout.py crash-post BASE TOKEN PEER_PORT SERVERS
      posts once and answers as soon as SERVERS servers have it; prints the activity's id.
  fanout.py crash-count PEER_PORT ACTIVITY TIMEOUT
      waits (at most TIMEOUT seconds) until every one of the 100 servers has ACTIVITY; prints the servers reached, the
      fewest and most copies per server, the servers with more than one copy, and the seconds it waited.
  fanout.py quiet BASE TOKEN PID WINDOWS
      posts the same way with nothing to deliver (federation off), measuring the server's CPU over the given windows
      after each answer; prints each post's CPU (µs), comma-separated.

Both wait for the server to be idle first.

The server's CPU is every thread's time on a CPU, in nanoseconds (/proc/PID/task/*/schedstat; /proc/PID/stat counts
ticks of 10 ms, a tenth of a window)."""
import json
import os
import sys
import time
import urllib.request

PHOTO = open("Tests/TestFixtures/photos/chelsea.jpg", "rb").read()


def cpu(pid: int) -> float:
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def settle(pid: int):
    """Waits until the server is idle (its start-up housekeeping, such as the media sweep, done): under 10 ms of CPU
    in half a second, for at most a minute."""
    deadline = time.time() + 60
    while time.time() < deadline:
        before = cpu(pid)
        time.sleep(0.5)
        if cpu(pid) - before < 0.01:
            return


def post(base: str, token: str, caption: str) -> dict:
    boundary = "benchmarkboundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n{caption}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + PHOTO + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(base + "/api/v1/posts", data=body, method="POST", headers={
        "Authorization": "Bearer " + token, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    return json.load(urllib.request.urlopen(request))


def deliver(base: str, token: str, peer_port: int, pid: int):
    def stats():
        return json.load(urllib.request.urlopen(f"http://127.0.0.1:{peer_port}/stats"))
    settle(pid)
    times, copies, windows, cpus, reached = [], [], [], [], []
    for round in range(10):
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{peer_port}/reset", method="POST"))
        time.sleep(1)
        made = post(base, token, f"Fan-out {round}")
        answered, before = time.time(), cpu(pid)
        wanted = f"{base}/p/{made['id']}/activity"
        deadline = answered + 30
        while time.time() < deadline:
            got = stats()
            have = {port for port, items in got.items() if any(item[0] == wanted for item in items)}
            if len(have) >= 100:
                break
            time.sleep(0.005)
        after, ended = cpu(pid), time.time()
        last = max(max(t for i, t in items if i == wanted) for items in got.values()
                   if any(i == wanted for i, _ in items))
        times.append(last - answered)
        copies.append(sorted(sum(1 for i, _ in items if i == wanted) for items in got.values()))
        reached.append(len(have))
        windows.append((ended - answered) * 1000)
        cpus.append((after - before) * 1e6)
        time.sleep(1)
    ordered = sorted(times)
    counts = {c for round in copies for c in round}
    print(f"{ordered[len(ordered)//2]*1000:.0f} {ordered[-1]*1000:.0f} {min(reached)} {min(counts)} {max(counts)} "
          + ",".join(f"{w:.0f}" for w in windows) + " " + ",".join(f"{c:.0f}" for c in cpus))


def stats(peer_port: int) -> dict:
    return json.load(urllib.request.urlopen(f"http://127.0.0.1:{peer_port}/stats"))


def reach(base: str, token: str, peer_port: int, pid: int, need: int):
    settle(pid)
    times, reached = [], []
    for round in range(10):
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{peer_port}/reset", method="POST"))
        time.sleep(1)
        made = post(base, token, f"Reach {round}")
        answered = time.time()
        wanted = f"{base}/p/{made['id']}/activity"
        got = {}
        while time.time() < answered + 60:
            got = stats(peer_port)
            if sum(1 for items in got.values() if any(item[0] == wanted for item in items)) >= need:
                break
            time.sleep(0.005)
        arrivals = sorted(min(t for i, t in items if i == wanted) for items in got.values()
                          if any(i == wanted for i, _ in items))
        reached.append(len(arrivals))
        times.append(arrivals[min(need, len(arrivals)) - 1] - answered)
        time.sleep(1)
    ordered = sorted(times)
    print(f"{ordered[len(ordered)//2]*1000:.0f} {ordered[-1]*1000:.0f} {min(reached)}")


def crash_post(base: str, token: str, peer_port: int, servers: int):
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{peer_port}/reset", method="POST"))
    made = post(base, token, "Crash")
    wanted = f"{base}/p/{made['id']}/activity"
    deadline = time.time() + 30
    while time.time() < deadline:
        if sum(1 for items in stats(peer_port).values() if any(i == wanted for i, _ in items)) >= servers:
            break
        time.sleep(0.001)
    print(wanted)


def crash_count(peer_port: int, wanted: str, timeout: float):
    started = time.time()
    deadline = started + timeout
    while True:
        got = stats(peer_port)
        copies = [sum(1 for i, _ in items if i == wanted) for items in got.values()]
        copies = [c for c in copies if c]
        if len(copies) >= 100 or time.time() > deadline:
            break
        time.sleep(0.05)
    took = time.time() - started
    time.sleep(2)  # anything sent twice arrives meanwhile
    copies = [c for c in (sum(1 for i, _ in items if i == wanted) for items in stats(peer_port).values()) if c]
    print(f"{len(copies)} {min(copies, default=0)} {max(copies, default=0)} {sum(1 for c in copies if c > 1)} "
          f"{took:.1f}")


def quiet(base: str, token: str, pid: int, windows: list[float]):
    settle(pid)
    cpus = []
    for round, window in enumerate(windows):
        time.sleep(1)
        post(base, token, f"Quiet {round}")
        before = cpu(pid)
        time.sleep(window / 1000)
        cpus.append((cpu(pid) - before) * 1e6)
        time.sleep(1)
    print(",".join(f"{c:.0f}" for c in cpus))


if __name__ == "__main__":
    if sys.argv[1] == "deliver":
        deliver(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "reach":
        reach(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    elif sys.argv[1] == "crash-post":
        crash_post(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "crash-count":
        crash_count(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    else:
        quiet(sys.argv[2], sys.argv[3], int(sys.argv[4]), [float(w) for w in sys.argv[5].split(",")])
