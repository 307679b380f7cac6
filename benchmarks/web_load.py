"""A load test of ``plies serve``: a real server on loopback, many clients at once, a crash in
the middle.

Clients create games, read them, move, step agents, undo, and now and then send a request the
server must refuse (malformed, oversized, stale, cross-site, wrong content type, an importing
agent spec, an unknown game); beside them ``searches`` clients keep a long search going. Halfway,
the server is killed (SIGKILL, as a crash) and started again on the same games file. At the end
every game a client saw created is read back: a game missing, or behind the last change the
server acknowledged, is a game lost.

Printed: requests per second, every 5xx answer, the refused requests by kind, the games lost,
the server's memory as games are created, and the latency of a cheap request (``GET`` of a game)
sent by a lone reader at 20 a second, first with no search running, then while ``searches``
searches run (the many clients above saturate the server on purpose, so their own latencies say
how long the queue was, not how the searches delay others). ``tests/web/test_load.py`` runs a
small load in CI; the figures in docs/benchmarks.md come from::

    python -m benchmarks.web_load --clients 32 --games 10000 --searches 4 --actions 4
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

PLAYS = [  # (game, seats) of the clients' games: a person against a quick agent
    ("tictactoe", ["human", "random"]),
    ("connect_four", ["human", "alphabeta:depth=2"]),
    ("othello", ["human", "random"]),
    ("nine_mens_morris", ["human", "random"]),
    ("backgammon", ["human", "random"]),
    ("dice_wars", ["human", "random"]),
]
SEARCH = ("othello", ["mcts:simulations=20000", "mcts:simulations=20000"])
BAD_KINDS = ("malformed", "wrong_type", "stale", "oversized", "cross_site", "text_plain",
             "importing_spec", "unknown_game")
EXPECTED = {"malformed": 400, "wrong_type": 400, "stale": 409, "oversized": 413, "cross_site": 403,
            "text_plain": 415, "importing_spec": 400, "unknown_game": 404}


@dataclass
class Tally:
    statuses: dict[int, int] = field(default_factory=dict)
    server_errors: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)  # bad request kind -> answered as expected
    wrong_refusals: list[str] = field(default_factory=list)
    cheap: list[float] = field(default_factory=list)  # seconds of GETs of a game under the full load
    probe_idle: list[float] = field(default_factory=list)  # the lone reader, no search running
    probe_loaded: list[float] = field(default_factory=list)  # the lone reader while the searches run
    acked: dict[str, int] = field(default_factory=dict)  # game id -> last version the server answered
    created: int = 0
    requests: int = 0
    unavailable: int = 0  # connection refused while the server restarted (retried)
    searching: int = 0  # searches in flight now
    memory: list[tuple[int, int]] = field(default_factory=list)  # (games created, server RSS in kB)


class Server:
    """``plies serve`` in a subprocess on a free loopback port."""

    def __init__(self, games_file: Path, workers: int) -> None:
        self.games_file = games_file
        self.workers = workers
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-c", "import sys; from plies.cli import main; sys.exit(main())", "serve",
                   "--port", str(self.port), "--games", str(self.games_file), "--move-workers", str(self.workers)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"plies serve ended: {self.process.stderr.read().decode()[-2000:]}")
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("plies serve did not answer within 120 s")

    def crash(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def rss_kb(self) -> int:
        """Resident memory of the server and its move workers (Linux /proc; 0 elsewhere)."""
        assert self.process is not None
        total = 0
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


async def request(client: httpx.AsyncClient, tally: Tally, method: str, path: str, **kwargs) -> httpx.Response:
    """One request, retried while the server restarts; 5xx answers are noted."""
    while True:
        try:
            start = time.perf_counter()
            answer = await client.request(method, path, **kwargs)
            seconds = time.perf_counter() - start
            break
        except httpx.TransportError:
            tally.unavailable += 1
            await asyncio.sleep(0.2)
    tally.requests += 1
    tally.statuses[answer.status_code] = tally.statuses.get(answer.status_code, 0) + 1
    if answer.status_code >= 500:
        tally.server_errors.append(f"{method} {path}: {answer.status_code} {answer.text[:200]}")
    if method == "GET" and path.startswith("/api/games/"):
        tally.cheap.append(seconds)
    return answer


async def bad_request(client: httpx.AsyncClient, tally: Tally, kind: str, game_id: str, version: int) -> None:
    base = f"/api/games/{game_id}"
    if kind == "malformed":
        answer = await request(client, tally, "POST", base + "/move", content=b"{not json",
                               headers={"content-type": "application/json"})
    elif kind == "wrong_type":
        answer = await request(client, tally, "POST", base + "/move", json={"version": version, "action": "e4"})
    elif kind == "stale":
        answer = await request(client, tally, "POST", base + "/undo", json={"version": version - 1})
    elif kind == "oversized":
        answer = await request(client, tally, "POST", "/api/games", json={"game": "x" * 70_000, "seats": []})
    elif kind == "cross_site":
        answer = await request(client, tally, "POST", base + "/step", json={"version": version},
                               headers={"origin": "http://evil.example"})
    elif kind == "text_plain":
        answer = await request(client, tally, "POST", "/api/games",
                               content=b'{"game": "tictactoe", "seats": ["human", "os:system:command=touch PWNED"]}',
                               headers={"content-type": "text/plain"})
    elif kind == "importing_spec":
        answer = await request(client, tally, "POST", "/api/games",
                               json={"game": "tictactoe", "seats": ["human", "os:system:command=touch PWNED"]})
    else:
        answer = await request(client, tally, "GET", "/api/games/no-such-game")
    if answer.status_code == EXPECTED[kind]:
        tally.refused[kind] = tally.refused.get(kind, 0) + 1
    else:
        tally.wrong_refusals.append(f"{kind}: {answer.status_code} {answer.text[:200]}")


async def player(client: httpx.AsyncClient, tally: Tally, rng: random.Random, games: list[int],
                 actions_per_game: int, bad_share: float) -> None:
    """Play games until the shared count ``games[0]`` runs out."""
    while games[0] > 0:
        games[0] -= 1
        game, seats = rng.choice(PLAYS)
        answer = await request(client, tally, "POST", "/api/games", json={"game": game, "seats": seats,
                                                                         "seed": rng.randrange(2**31)})
        if answer.status_code != 201:
            continue
        game_id = answer.json()["id"]
        tally.acked[game_id] = 0
        tally.created += 1
        for _ in range(actions_per_game):
            answer = await request(client, tally, "GET", f"/api/games/{game_id}")
            if answer.status_code != 200:
                break
            view = answer.json()
            tally.acked[game_id] = max(tally.acked[game_id], view["version"])
            if view["over"]:
                break
            if rng.random() < bad_share:
                await bad_request(client, tally, rng.choice(BAD_KINDS), game_id, view["version"])
                continue
            if view["can_undo"] and rng.random() < 0.2:
                path, body = "/undo", {"version": view["version"]}
            elif view["human_to_move"]:
                path, body = "/move", {"version": view["version"], "action": rng.choice(view["legal"])["action"]}
            else:
                path, body = "/step", {"version": view["version"]}
            answer = await request(client, tally, "POST", f"/api/games/{game_id}{path}", json=body)
            if answer.status_code == 200:
                tally.acked[game_id] = max(tally.acked[game_id], answer.json()["version"])


async def searcher(client: httpx.AsyncClient, tally: Tally, rng: random.Random, stop: asyncio.Event) -> None:
    """Keep one long search going until ``stop``."""
    while not stop.is_set():
        game, seats = SEARCH
        answer = await request(client, tally, "POST", "/api/games", json={"game": game, "seats": seats,
                                                                         "seed": rng.randrange(2**31)})
        if answer.status_code != 201:
            await asyncio.sleep(0.5)
            continue
        game_id, version = answer.json()["id"], 0
        while not stop.is_set():
            tally.searching += 1
            try:
                answer = await request(client, tally, "POST", f"/api/games/{game_id}/step", json={"version": version})
            finally:
                tally.searching -= 1
            if answer.status_code != 200 or answer.json()["over"]:
                break
            version = answer.json()["version"]


async def probe(client: httpx.AsyncClient, tally: Tally, ids: list[str], seconds: float, rng: random.Random,
                searches_wanted: int, rate: float = 20.0) -> list[float]:
    """Seconds of ``GET /api/games/ID`` sent one at a time, ``rate`` a second, counted while at
    least ``searches_wanted`` searches are in flight."""
    times: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        answer = await request(client, tally, "GET", f"/api/games/{rng.choice(ids)}")
        spent = time.perf_counter() - start
        if answer.status_code == 200 and tally.searching >= searches_wanted:
            times.append(spent)
        await asyncio.sleep(max(0.0, 1 / rate - spent))
    return times


async def watch_memory(server: Server, tally: Tally, stop: asyncio.Event, every: int) -> None:
    mark = 0
    while not stop.is_set():
        if tally.created >= mark:
            tally.memory.append((tally.created, server.rss_kb()))
            mark += every
        await asyncio.sleep(0.2)


async def drive(server: Server, clients: int, games: int, searches: int, actions_per_game: int,
                bad_share: float, seed: int, restart: bool, probe_seconds: float) -> tuple[Tally, dict[str, int], float]:
    tally = Tally()
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=clients + searches + 4)
    async with httpx.AsyncClient(base_url=server.url, timeout=300, limits=limits) as client:
        stop = asyncio.Event()
        half = [games // 2]  # the crash comes once the first half of the games has been handed out
        rest = [games - half[0]]
        background = [asyncio.create_task(searcher(client, tally, random.Random(rng.random()), stop))
                      for _ in range(searches)]
        background.append(asyncio.create_task(watch_memory(server, tally, stop, max(1, games // 10))))
        start = time.perf_counter()
        first = await request(client, tally, "POST", "/api/games", json={"game": "tictactoe",
                                                                       "seats": ["human", "random"]})
        for kind in BAD_KINDS:  # each kind at least once, whatever the draws below
            await bad_request(client, tally, kind, first.json()["id"], 0)
        await asyncio.gather(*(player(client, tally, random.Random(rng.random()), half, actions_per_game, bad_share)
                               for _ in range(clients)))
        if restart:
            server.crash()
            server.start()
        await asyncio.gather(*(player(client, tally, random.Random(rng.random()), rest, actions_per_game, bad_share)
                               for _ in range(clients)))
        seconds = time.perf_counter() - start
        # latency of a cheap request: a lone client reading games at a steady pace, alone and
        # then while the searches run (the load above saturates the server on purpose)
        ids = list(tally.acked)
        stop.set()
        await asyncio.gather(*background)
        tally.probe_idle = await probe(client, tally, ids, probe_seconds, rng, searches_wanted=0)
        stop = asyncio.Event()
        background = [asyncio.create_task(searcher(client, tally, random.Random(rng.random()), stop))
                      for _ in range(searches)]
        tally.probe_loaded = await probe(client, tally, ids, probe_seconds, rng, searches_wanted=searches)
        stop.set()
        await asyncio.gather(*background)
        lost = {}
        for game_id, version in tally.acked.items():
            answer = await client.get(f"/api/games/{game_id}")
            if answer.status_code != 200 or answer.json()["version"] < version:
                lost[game_id] = answer.status_code
    return tally, lost, seconds


def run_load(clients: int = 8, games: int = 60, searches: int = 2, actions_per_game: int = 12,
             bad_share: float = 0.1, seed: int = 0, restart: bool = True, workers: int | None = None,
             folder: Path | None = None, probe_seconds: float = 5.0) -> dict:
    """Start a server, drive the load, stop the server: the figures as a dict."""
    with tempfile.TemporaryDirectory() as scratch:
        games_file = Path(folder or scratch) / "games.sqlite"
        # the searches hold workers for seconds: a few more keep the quick agents' moves flowing
        server = Server(games_file, workers or searches + 2)
        server.start()
        try:
            tally, lost, seconds = asyncio.run(drive(server, clients, games, searches, actions_per_game,
                                                     bad_share, seed, restart, probe_seconds))
        finally:
            server.stop()
        pwned = (Path.cwd() / "PWNED").exists()

    def ms(values: list[float], q: float) -> float:
        return 1000 * statistics.quantiles(values, n=100)[int(q) - 1] if len(values) >= 2 else float("nan")

    return {"requests": tally.requests, "seconds": seconds, "requests_per_second": tally.requests / seconds,
            "games_created": tally.created, "statuses": dict(sorted(tally.statuses.items())),
            "server_errors": tally.server_errors, "refused": tally.refused, "wrong_refusals": tally.wrong_refusals,
            "lost": lost, "unavailable_retries": tally.unavailable, "pwned": pwned,
            "cheap_p50_ms": ms(tally.cheap, 50), "cheap_p99_ms": ms(tally.cheap, 99),
            "probe_idle": len(tally.probe_idle), "probe_idle_p50_ms": ms(tally.probe_idle, 50),
            "probe_idle_p99_ms": ms(tally.probe_idle, 99),
            "probe_loaded": len(tally.probe_loaded), "probe_loaded_p50_ms": ms(tally.probe_loaded, 50),
            "probe_loaded_p99_ms": ms(tally.probe_loaded, 99),
            "memory_kb": tally.memory}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=4)
    parser.add_argument("--actions", type=int, default=12, help="requests per game at most")
    parser.add_argument("--workers", type=int, help="the server's move workers (default: searches + 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--probe-seconds", type=float, default=60.0, help="length of each latency probe")
    parser.add_argument("--no-restart", action="store_true")
    args = parser.parse_args(argv)
    from benchmarks.timing import machine

    print(f"machine: {machine()}")
    figures = run_load(args.clients, args.games, args.searches, args.actions, seed=args.seed,
                       restart=not args.no_restart, workers=args.workers, probe_seconds=args.probe_seconds)
    print(f"{figures['requests']} requests in {figures['seconds']:.1f} s: {figures['requests_per_second']:.0f} "
          f"requests/s; {figures['games_created']} games created, {len(figures['lost'])} lost across the crash "
          f"and restart; {len(figures['server_errors'])} answers 5xx")
    print(f"GET of a game under the full load (saturated): p50 {figures['cheap_p50_ms']:.1f} ms, "
          f"p99 {figures['cheap_p99_ms']:.1f} ms")
    print(f"GET of a game by a lone reader (20/s): alone p50 {figures['probe_idle_p50_ms']:.1f} ms, p99 "
          f"{figures['probe_idle_p99_ms']:.1f} ms ({figures['probe_idle']} requests); while {args.searches} "
          f"searches ran p50 {figures['probe_loaded_p50_ms']:.1f} ms, p99 {figures['probe_loaded_p99_ms']:.1f} ms "
          f"({figures['probe_loaded']} requests)")
    print(f"statuses: {figures['statuses']}; refused as expected: {figures['refused']}")
    if figures["wrong_refusals"] or figures["server_errors"]:
        print("unexpected:", *figures["wrong_refusals"][:10], *figures["server_errors"][:10], sep="\n  ")
    print("server memory (server + move workers) by games created: " +
          ", ".join(f"{n}: {kb / 1024:.0f} MB" for n, kb in figures["memory_kb"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
