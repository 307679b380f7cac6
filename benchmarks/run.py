"""Time every registered game against every peer that has it, all the same way, in one run.

    python -m benchmarks.run [--games tictactoe,othello] [--peers openspiel,pettingzoo,pgx]
                             [--what playout,aec,single,vector,calls] [--seconds 2] [--batches 1,1024]
                             [--register ID=pkg.module:GAME] [--json OUT] [--compare-with OLD_CHECKOUT]

Kinds of measurement (a step is one applied action; rates are the best of five repeats):

- ``playout``: random games through the GameState, ``apply`` (checked) and ``apply_unchecked``,
  next to OpenSpiel's Python API;
- ``aec``: the PettingZoo AEC env with random masked actions, next to PettingZoo's classic envs
  and OpenSpiel's games through Shimmy;
- ``single``: the single-agent Gymnasium env, a random learner against the ``random`` opponent
  (learner steps), next to PettingZoo's classic envs and OpenSpiel's games through Shimmy
  stepped as AEC envs where only the first seat's steps count;
- ``vector``: the batched env (serial) at each batch size, next to pgx at the same size and
  OpenSpiel one game at a time (both count player decisions only);
- ``calls``: nanoseconds per GameState call over the decision nodes of random games, next to
  OpenSpiel's equivalent calls.

Ratios are plies's rate over the peer's (above 1: plies is faster), taken within this run.
``--compare-with`` runs plies's side twice, in two worker processes, this checkout ("after")
and the given one ("before"), each cell by both in turn, and adds after/before ratios: a
before/after comparison that both sides take under the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

import plies
from benchmarks import subject
from benchmarks.peers import PEERS, load
from benchmarks.timing import REPEATS, Rate, Unavailable, machine, measure

ROOT = Path(__file__).resolve().parents[1]
SUBJECT_SCRIPT = Path(subject.__file__).resolve()
TITLES = {
    "playout": "Random playouts through the GameState (steps/s)",
    "aec": "PettingZoo AEC env, random masked actions (steps/s)",
    "single": "Single-agent env against a random opponent (learner steps/s; peers: AEC envs, the first seat's steps)",
    "vector": "Batched env, random legal actions (steps/s; player decisions)",
    "calls": "GameState calls (ns per call)",
}


def variants(kind: str, batches: tuple[int, ...]) -> tuple[str, ...]:
    return {"playout": subject.PLAYOUT_VARIANTS, "aec": ("env",), "single": ("env",), "vector": tuple(map(str, batches)),
            "calls": subject.CALLS}[kind]


class Checkout:
    """plies's side measured in a worker process with ``root`` first on its path (another
    checkout of plies, older layouts included), speaking subject.py's line protocol."""

    def __init__(self, label: str, root: Path):
        self.label = label
        environment = dict(os.environ, PYTHONPATH=str(root))
        self.process = subprocess.Popen([sys.executable, str(SUBJECT_SCRIPT)], cwd=root, env=environment,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.plies_file = self._answer()["plies"]
        self.game_ids = self.ask({"ids": True})["ids"]

    def _answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} worker exited (code {self.process.wait()})")
        return json.loads(line)

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def register(self, game_id: str, target: str) -> None:
        self.game_ids = self.ask({"register": [game_id, target]})["ids"]

    def warm(self, game: str, batches: tuple[int, ...]) -> None:
        if game in self.game_ids:
            self.ask({"warm": game, "batches": list(batches)})

    def time_cell(self, kind: str, game: str, variant: str, seconds: float) -> Rate:
        answer = self.ask({"kind": kind, "game": game, "variant": variant, "seconds": seconds})
        if "error" in answer:
            raise Unavailable(answer["error"])
        return Rate(**answer["rate"])

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


class InProcess:
    """plies's side measured in this process (the checkout this runner belongs to)."""

    label = "plies"
    game_ids = property(lambda self: plies.game_ids())

    def register(self, game_id: str, target: str) -> None:
        plies.register(game_id, target)

    def warm(self, game: str, batches: tuple[int, ...]) -> None:
        subject.warm(game, batches)

    def time_cell(self, kind: str, game: str, variant: str, seconds: float) -> Rate:
        return subject.time_cell(kind, game, variant, seconds)

    def close(self) -> None:
        pass


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        lines = [f"## {self.title}", "", "| " + " | ".join(self.header) + " |",
                 "|" + "---|" * 2 + "---:|" * (len(self.header) - 2)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines + [""] + [f"- {note}" for note in self.notes])


def rate_text(kind: str, rate: Rate | None) -> str:
    if rate is None:
        return "-"
    if kind == "calls":
        return f"{1e9 / rate.best:,.0f}"
    value = rate.best
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k" if value >= 1e3 else f"{value:.0f}"


def ratio_text(numerator: Rate | None, denominator: Rate | None) -> str:
    return "-" if numerator is None or denominator is None else f"{numerator.best / denominator.best:.2f}x"


@dataclass
class Runner:
    sides: list  # plies's sides: [InProcess()] or [before, after] Checkouts
    peers: dict  # name -> adapter module, only those usable here
    seconds: float
    batches: tuple[int, ...]
    results: dict = field(default_factory=dict)  # (kind, game, variant, side) -> Rate | None
    peer_cache: dict = field(default_factory=dict)  # (peer, kind, game, key) -> Rate | None

    def cells(self, kinds: list[str], games: list[str]) -> Iterator[tuple[str, str, str]]:
        for kind in kinds:
            for game in games:
                for variant in variants(kind, self.batches):
                    yield kind, game, variant

    def measure_cell(self, index: int, kind: str, game: str, variant: str) -> None:
        # alternate which side goes first, so that a drift of the machine's load favours neither
        sides = self.sides if index % 2 == 0 else self.sides[::-1]
        for side in sides:
            self.results[kind, game, variant, side.label] = self._try(
                lambda side=side: side.time_cell(kind, game, variant, self.seconds))
        for name, peer in self.peers.items():
            if kind not in peer.LABELS or game not in peer.GAMES:
                continue
            key = (name, kind, game, peer.same_as(kind, variant))
            if key not in self.peer_cache:
                self.peer_cache[key] = self._try(
                    lambda peer=peer: measure(peer.workload(kind, game, variant), self.seconds))
            self.results[kind, game, variant, name] = self.peer_cache[key]

    @staticmethod
    def _try(timed: Callable[[], Rate]) -> Rate | None:
        try:
            return timed()
        except Unavailable:
            return None

    def table(self, kind: str, games: list[str]) -> Table:
        names = [side.label for side in self.sides]
        peers = [p for p in self.peers if any(self.results.get((kind, g, v, p)) for g in games
                                               for v in variants(kind, self.batches))]
        header = ["game", "batch" if kind == "vector" else "call" if kind == "calls" else "what", *names]
        if len(names) == 2:
            header.append(f"{names[1]}/{names[0]}")
        for peer in peers:
            header += [peer, *(f"{side}/{peer}" for side in names)]
        table = Table(TITLES[kind], header)
        for game in games:
            for variant in variants(kind, self.batches):
                got = [self.results.get((kind, game, variant, side)) for side in names]
                if not any(got):
                    continue
                row = [game, variant, *(rate_text(kind, r) for r in got)]
                if len(names) == 2:
                    row.append(ratio_text(got[1], got[0]))
                for peer in peers:
                    theirs = self.results.get((kind, game, variant, peer))
                    row += [rate_text(kind, theirs), *(ratio_text(r, theirs) for r in got)]
                table.rows.append(row)
        table.notes += [f"{peer}: {self.peers[peer].LABELS[kind]}" for peer in peers]
        if kind == "calls" and "openspiel" in peers:
            names_there = self.peers["openspiel"].EQUIVALENT_CALLS
            table.notes.append("OpenSpiel's calls: " + "; ".join(f"{ours} -> {theirs}"
                                                                for ours, theirs in names_there.items()))
        table.notes.append("ratios are of rates (above 1: the left side is faster); best of "
                           f"{REPEATS} repeats over {self.seconds:g} s a cell")
        return table

    def records(self) -> list[dict]:
        return [{"kind": k, "game": g, "variant": v, "side": s, **(r.to_dict() if r else {"missing": True})}
                for (k, g, v, s), r in self.results.items()]


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", help="comma list of game ids (default: every registered game)")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma list (default: %(default)s)")
    parser.add_argument("--what", default=",".join(subject.KINDS), help="comma list (default: %(default)s)")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per cell and side")
    parser.add_argument("--batches", default="1,1024", help="batch sizes of the vector kind")
    parser.add_argument("--register", action="append", default=[], metavar="ID=pkg.module:GAME",
                        help="time a game of your own too (plies.register); repeatable")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    parser.add_argument("--compare-with", type=Path, metavar="CHECKOUT",
                        help="another checkout of plies (its repository root) to time as 'before'")
    return parser.parse_args(argv)


def usable_peers(names: list[str], out: Callable[[str], None]) -> dict:
    peers = {}
    for name in names:
        adapter = load(name)
        reason = adapter.missing()
        if reason:
            out(f"- {adapter.NAME} skipped: {reason}")
        else:
            peers[adapter.NAME] = adapter
    return peers


def run(argv: list[str] | None = None, out: Callable[[str], None] = print) -> list[Table]:
    args = parse(argv)
    kinds = args.what.split(",")
    unknown = set(kinds) - set(subject.KINDS)
    if unknown:
        raise SystemExit(f"unknown kinds {sorted(unknown)}; kinds: {', '.join(subject.KINDS)}")
    batches = tuple(int(b) for b in args.batches.split(","))
    if args.compare_with:
        sides = [Checkout("before", args.compare_with.resolve()), Checkout("after", ROOT)]
    else:
        sides = [InProcess()]
    for registration in args.register:
        game_id, _, target = registration.partition("=")
        for side in sides:
            side.register(game_id, target)
    games = args.games.split(",") if args.games else list(sides[-1].game_ids)
    out(f"machine: {machine()}")
    for side in sides:
        out(f"- {side.label}: plies from {getattr(side, 'plies_file', plies.__file__)}")
    runner = Runner(sides, usable_peers(args.peers.split(","), out), args.seconds, batches)
    try:
        for game in tqdm(games, desc="warm-up (numba compiles or loads its cache)", file=sys.stderr):
            for side in sides:
                side.warm(game, batches)
        cells = list(runner.cells(kinds, games))
        for index, cell in enumerate(tqdm(cells, desc="timing", file=sys.stderr)):
            runner.measure_cell(index, *cell)
    finally:
        for side in sides:
            side.close()
    tables = [runner.table(kind, games) for kind in kinds]
    for table in tables:
        out("\n" + table.markdown())
    out(f"\nafter timing: {machine()}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "records": runner.records()}, indent=1))
    return tables


if __name__ == "__main__":
    run()
