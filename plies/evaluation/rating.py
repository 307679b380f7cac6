"""Rating ladders: a fixed rating scale per game, set by a round-robin among shipped baselines,
and placing any agent on it.

The model is Bradley-Terry with draws (Davidson 1970): with ``d = (r_i - r_j) ln(10) / 800``,

    P(i wins) = e^d / Z,   P(draw) = nu / Z,   P(j wins) = e^-d / Z,   Z = e^d + e^-d + nu,

so ratings are on the Elo scale (400 points: a 10:1 win ratio between decisive results), the
draw parameter ``nu`` is fitted with them, and the anchor (``random``) is 0. Ratings are the
maximum of the likelihood times a weak normal prior (sd ``PRIOR_SD`` points around 0), which
only keeps unbeaten rungs finite; intervals are 95% normal intervals from the observed
information (the inverse Hessian). A ladder ships as JSON (plies/evaluation/ladders/GAME.json)
with its rungs, ratings, intervals, the game counts behind them, the date and the command that
rebuilds it. Placing an agent plays it against the rungs nearest its current estimate, in
seat-swapped pairs, until its interval is narrower than +-``width`` or the game budget is spent;
the rungs' ratings are held fixed, so the interval is the placement's own uncertainty.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plies.evaluation.store import GameRecord
from plies.evaluation.tournament import TournamentConfig, play_games, run_tournament, schedule
from plies.files import atomic_write

SCALE = math.log(10) / 400
"""Natural-log strength per rating point (the Elo scale)."""
PRIOR_SD = 2000.0
"""Standard deviation (points) of the weak prior that keeps unbeaten agents finite."""
Z95 = 1.959963984540054
LADDERS = Path(__file__).with_name("ladders")
ANCHOR = "random"


def ladder_path(game: str) -> Path:
    """Where the shipped ladder of ``game`` lives."""
    return LADDERS / f"{game}.json"


# ----- the model ------------------------------------------------------------------------------


def outcome_probabilities(rating_a: float, rating_b: float, nu: float) -> tuple[float, float, float]:
    """(P(a wins), P(draw), P(b wins)) between ratings ``a`` and ``b`` with draw parameter ``nu``."""
    if not (math.isfinite(rating_a) and math.isfinite(rating_b) and math.isfinite(nu) and nu >= 0):
        raise ValueError(f"ratings must be finite and nu a finite number >= 0, got {rating_a}, {rating_b}, {nu}")
    d = (rating_a - rating_b) * SCALE / 2
    z = math.exp(d) + math.exp(-d) + nu
    return math.exp(d) / z, nu / z, math.exp(-d) / z


def expected_score(rating_a: float, rating_b: float, nu: float) -> float:
    """Expected score of ``a`` (win 1, draw 1/2)."""
    win, draw, _ = outcome_probabilities(rating_a, rating_b, nu)
    return win + draw / 2


def _pair_terms(diff: np.ndarray, lognu: float, w: np.ndarray, dr: np.ndarray, lo: np.ndarray):
    """Negative log-likelihood of pairs and its derivatives by ``d`` and ``log nu``."""
    d = diff * SCALE / 2
    nu = math.exp(lognu)
    ep, em = np.exp(d), np.exp(-d)
    z = ep + em + nu
    n = w + dr + lo
    nll = -(w * d + dr * lognu - lo * d - n * np.log(z)).sum()
    g_d = -(w - lo) + n * (ep - em) / z
    g_nu = (-dr + n * nu / z).sum()
    h_dd = n * ((ep + em) * z - (ep - em) ** 2) / z**2
    h_dnu = -n * (ep - em) * nu / z**2
    h_nunu = (n * nu * (ep + em) / z**2).sum()
    return nll, g_d, g_nu, h_dd, h_dnu, h_nunu


@dataclass
class Fit:
    ratings: np.ndarray
    covariance: np.ndarray  # of the ratings (the anchor's row and column are 0)
    nu: float

    def interval(self, i: int) -> tuple[float, float]:
        half = Z95 * math.sqrt(max(self.covariance[i, i], 0.0))
        return float(self.ratings[i] - half), float(self.ratings[i] + half)


def _check_rungs(rungs: np.ndarray, n: int, anchor: int) -> None:
    """A ValueError unless ``rungs`` are whole numbers 0..n-1 and ``anchor`` one of them too
    (numpy would wrap a negative index round to the last rung)."""
    whole = lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool)  # noqa: E731
    if not whole(n) or n < 1 or not whole(anchor) or not 0 <= anchor < n:
        raise ValueError(f"n must be a positive count and anchor one of its rungs 0..{n - 1}, got {n}, {anchor!r}")
    if rungs.size and (not np.isfinite(rungs).all() or (rungs != np.floor(rungs)).any()
                       or rungs.min() < 0 or rungs.max() >= n):
        raise ValueError(f"rungs are whole numbers 0..{n - 1}, got {sorted(set(rungs.ravel().tolist()))[:8]}")


def fit_ratings(matches: Sequence[Sequence[int]], n: int, anchor: int = 0) -> Fit:
    """Fit ``n`` ratings to ``matches`` rows ``(i, j, wins of i, draws, wins of j)``; the
    ``anchor`` is rated 0."""
    from scipy.optimize import minimize

    rows = np.asarray(matches, np.float64).reshape(-1, 5)
    _check_rungs(rows[:, :2], n, anchor)
    if not np.isfinite(rows[:, 2:]).all() or (rows[:, 2:] < 0).any():
        raise ValueError("match counts (wins, draws, losses) must be finite and >= 0")
    ii, jj = rows[:, 0].astype(int), rows[:, 1].astype(int)
    free = [k for k in range(n) if k != anchor]
    index = {k: m for m, k in enumerate(free)}  # rating k -> parameter m; last parameter: log nu
    a_i = np.array([index.get(k, -1) for k in ii])
    a_j = np.array([index.get(k, -1) for k in jj])

    def unpack(x: np.ndarray) -> np.ndarray:
        ratings = np.zeros(n)
        ratings[free] = x[:-1]
        return ratings

    def terms(x: np.ndarray):
        ratings = unpack(x)
        nll, g_d, g_nu, h_dd, h_dnu, h_nunu = _pair_terms(ratings[ii] - ratings[jj], x[-1], rows[:, 2],
                                                           rows[:, 3], rows[:, 4])
        m = len(free)
        grad = np.zeros(m + 1)
        hess = np.zeros((m + 1, m + 1))
        half = SCALE / 2
        for sign, a in ((1.0, a_i), (-1.0, a_j)):
            ok = a >= 0
            np.add.at(grad, a[ok], sign * half * g_d[ok])
            np.add.at(hess[m], a[ok], sign * half * h_dnu[ok])
            np.add.at(hess[:, m], a[ok], sign * half * h_dnu[ok])
        for s1, a in ((1.0, a_i), (-1.0, a_j)):
            for s2, b in ((1.0, a_i), (-1.0, a_j)):
                ok = (a >= 0) & (b >= 0)
                np.add.at(hess, (a[ok], b[ok]), s1 * s2 * half * half * h_dd[ok])
        grad[m] = g_nu
        hess[m, m] += h_nunu
        nll += (x[:-1] ** 2).sum() / (2 * PRIOR_SD**2)
        grad[:-1] += x[:-1] / PRIOR_SD**2
        hess[np.arange(m), np.arange(m)] += 1 / PRIOR_SD**2
        return nll, grad, hess

    x0 = np.zeros(len(free) + 1)
    result = minimize(lambda x: terms(x)[0], x0, jac=lambda x: terms(x)[1], hess=lambda x: terms(x)[2],
                      method="trust-exact")
    hess = terms(result.x)[2]
    cov_free = np.linalg.inv(hess)
    covariance = np.zeros((n, n))
    covariance[np.ix_(free, free)] = cov_free[:-1, :-1]
    return Fit(unpack(result.x), covariance, float(math.exp(result.x[-1])))


def fit_luce(finishes: Sequence[Sequence[int]], n: int, anchor: int = 0) -> Fit:
    """Fit ``n`` ratings to games of more than two players: rows list the rung of every seat,
    then the winning seat. The model (Luce's choice axiom, Bradley-Terry's multi-player form):
    P(seat k wins) = 10^(r_k/400) / sum over the seats of 10^(r/400). ``nu`` is 0."""
    from scipy.optimize import minimize

    games = [(list(map(int, row[:-1])), int(row[-1])) for row in finishes]
    for seats, winner in games:
        _check_rungs(np.asarray(seats, np.float64), n, anchor)
        if not 0 <= winner < len(seats):
            raise ValueError(f"a game's winner is one of its {len(seats)} seats, not {winner}")
    free = [k for k in range(n) if k != anchor]

    def terms(x: np.ndarray):
        ratings = np.zeros(n)
        ratings[free] = x
        nll, grad, hess = 0.0, np.zeros(n), np.zeros((n, n))
        for seats, winner in games:
            s = ratings[seats] * SCALE
            top = s.max()
            e = np.exp(s - top)
            total = e.sum()
            nll += -(s[winner] - top) + math.log(total)
            probs = e / total
            np.add.at(grad, seats, SCALE * probs)
            grad[seats[winner]] -= SCALE
            h = SCALE**2 * (np.diag(probs) - np.outer(probs, probs))
            np.add.at(hess, (np.repeat(seats, len(seats)), np.tile(seats, len(seats))), h.ravel())
        g, hm = grad[free], hess[np.ix_(free, free)]
        nll += (x**2).sum() / (2 * PRIOR_SD**2)
        g = g + x / PRIOR_SD**2
        hm = hm + np.eye(len(free)) / PRIOR_SD**2
        return nll, g, hm

    result = minimize(lambda x: terms(x)[0], np.zeros(len(free)), jac=lambda x: terms(x)[1],
                      hess=lambda x: terms(x)[2], method="trust-exact")
    ratings = np.zeros(n)
    ratings[free] = result.x
    covariance = np.zeros((n, n))
    covariance[np.ix_(free, free)] = np.linalg.inv(terms(result.x)[2])
    return Fit(ratings, covariance, 0.0)


def fit_one_luce(field_strength: np.ndarray, won: np.ndarray) -> tuple[float, float]:
    """The rating (and its standard error) of one agent from multi-player games: per game the
    sum of 10^(r/400) over its opponents, and whether the agent won."""
    from scipy.optimize import minimize_scalar

    log_field = np.log(field_strength)

    def nll(r: float) -> float:
        s = r * SCALE
        return float((-won * s + np.logaddexp(s, log_field)).sum() + r * r / (2 * PRIOR_SD**2))

    r = float(minimize_scalar(nll, bounds=(-4000, 8000), method="bounded", options={"xatol": 0.01}).x)
    p = 1 / (1 + np.exp(log_field - r * SCALE))
    h = float((p * (1 - p)).sum() * SCALE**2 + 1 / PRIOR_SD**2)
    return r, 1 / math.sqrt(h)


def fit_one(opponents: np.ndarray, wins: np.ndarray, draws: np.ndarray, losses: np.ndarray,
            nu: float) -> tuple[float, float]:
    """The rating (and its standard error) of one agent against opponents of fixed ratings."""
    from scipy.optimize import minimize_scalar

    counts = np.concatenate([np.ravel(wins), np.ravel(draws), np.ravel(losses)]).astype(np.float64)
    if not np.isfinite(counts).all() or (counts < 0).any() or not (math.isfinite(nu) and nu > 0):
        raise ValueError(f"game counts must be finite and >= 0 and nu a finite number > 0, got nu={nu}")
    lognu = math.log(nu)

    def nll(r: float) -> float:
        return float(_pair_terms(r - opponents, lognu, wins, draws, losses)[0] + r * r / (2 * PRIOR_SD**2))

    low, high = float(opponents.min()) - 3000, float(opponents.max()) + 3000
    r = float(minimize_scalar(nll, bounds=(low, high), method="bounded", options={"xatol": 0.01}).x)
    h = float((_pair_terms(r - opponents, lognu, wins, draws, losses)[3]).sum() * (SCALE / 2) ** 2
              + 1 / PRIOR_SD**2)
    return r, 1 / math.sqrt(h)


# ----- ladders ------------------------------------------------------------------------------


@dataclass
class Rung:
    spec: str
    rating: float
    low: float
    high: float
    games: int


@dataclass
class Ladder:
    """A game's rating scale: rungs with their ratings and what they were fitted from."""

    game: str
    rungs: list[Rung]
    nu: float
    games_per_pair: int
    opening_plies: int
    seed: int
    date: str
    command: str
    matches: list[list[int]] = field(default_factory=list)  # (i, j, wins of i, draws, wins of j)
    finishes: list[list[int]] = field(default_factory=list)  # more players: rung per seat, winning seat
    players: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    model: str = "Bradley-Terry with draws (Davidson), Elo scale 400*log10, random = 0"

    def specs(self) -> list[str]:
        return [r.spec for r in self.rungs]

    def ratings(self) -> np.ndarray:
        return np.array([r.rating for r in self.rungs])

    def save(self, path: str | Path) -> None:
        """Write atomically (a temporary file renamed over the target)."""
        path = Path(path)
        data = asdict(self)
        atomic_write(path, lambda out: out.write(json.dumps(data, indent=1) + "\n"), text=True)

    @classmethod
    def load(cls, game_or_path: str | Path) -> Ladder:
        """The shipped ladder of a game id, or a ladder file."""
        path = Path(game_or_path)
        if not path.suffix:
            path = ladder_path(str(game_or_path))
            if not path.exists():
                shipped = sorted(p.stem for p in LADDERS.glob("*.json"))
                raise ValueError(f"no rating ladder for {game_or_path!r} (ladders: {', '.join(shipped) or 'none'}); "
                                 f"build one: plies rate --build --game {game_or_path} --rungs SPEC ...")
        try:
            data = json.loads(path.read_text())
            data["rungs"] = [Rung(**r) for r in data["rungs"]]
            ladder = cls(**data)
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ValueError(f"{path} is not a plies rating ladder ({type(err).__name__}: {err})") from err
        problem = ladder.problem()
        if problem:
            raise ValueError(f"{path} is not a plies rating ladder: {problem}")
        from plies.agents.specs import check_untrusted

        for spec in ladder.specs():  # a shared ladder file must not run code or touch files
            check_untrusted(spec, f"the ladder file {path}")
        return ladder

    def problem(self) -> str | None:
        """Why these fields (read from a file) are not a ladder placement can use, or None:
        finite ratings, counts that are whole numbers >= 0, rows that name existing rungs."""
        def whole(value: Any, low: int = 0) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value >= low

        def number(value: Any) -> bool:
            return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

        if not isinstance(self.game, str) or not self.rungs:
            return "it names no game or has no rungs"
        for rung in self.rungs:
            if not isinstance(rung.spec, str):
                return f"a rung's spec is {rung.spec!r}"
            if not all(number(v) for v in (rung.rating, rung.low, rung.high)) or not whole(rung.games):
                return f"rung {rung.spec!r} has a rating or interval that is not a finite number, or games not >= 0"
        if not whole(self.players, 2) or not whole(self.games_per_pair) or not whole(self.opening_plies):
            return "its players (>= 2), games per pair or opening plies are not whole numbers"
        # two players fit draws with nu > 0; more players fit winners alone (nu 0)
        if not (number(self.nu) and (self.nu > 0 if self.players == 2 else self.nu >= 0)):
            return f"its draw parameter is {self.nu!r}, not a finite number > 0 (>= 0 for more than two players)"
        if not isinstance(self.options, dict):
            return f"its options are {self.options!r}, not a dict"
        n = len(self.rungs)
        for row in self.matches:
            if not (isinstance(row, list) and len(row) == 5 and all(whole(v) for v in row)
                    and row[0] < n and row[1] < n):
                return f"a match row {row!r} is not (rung, rung, wins, draws, wins) of its {n} rungs"
        for row in self.finishes:
            if not (isinstance(row, list) and len(row) == self.players + 1 and all(whole(v) for v in row)
                    and all(r < n for r in row[:-1]) and row[-1] < self.players):
                return f"a finish row {row!r} is not (a rung per seat, winning seat) of its {n} rungs"
        return None

    def format(self) -> str:
        lines = [f"{self.game} ladder ({self.date}; {self.model}; draw parameter {self.nu:.3f})"]
        for r in sorted(self.rungs, key=lambda r: -r.rating):
            lines.append(f"  {r.rating:7.0f}  [{r.low:6.0f}, {r.high:6.0f}]  {r.games:5d} games  {r.spec}")
        return "\n".join(lines)


def match_counts(records: Sequence[GameRecord], agents: Sequence[str]) -> list[list[int]]:
    """Rows (i, j, wins of i, draws, wins of j) for every pair of ``agents`` that met (two-player
    records; a game's winner has the larger return)."""
    where = {a: k for k, a in enumerate(agents)}
    counts: dict[tuple[int, int], list[int]] = {}
    for record in records:
        a, b = (where[s] for s in record.seats)
        i, j = min(a, b), max(a, b)
        row = counts.setdefault((i, j), [0, 0, 0])
        ra, rb = record.returns
        if ra == rb:
            row[1] += 1
        elif (ra > rb) == (a == i):
            row[0] += 1
        else:
            row[2] += 1
    return [[i, j, *row] for (i, j), row in sorted(counts.items())]


def build_ladder(game: str, rungs: Sequence[str], games_per_pair: int = 40, seed: int = 0,
                 opening_plies: int = 0, workers: int = 1, options: dict[str, Any] | None = None,
                 progress: bool = True) -> Ladder:
    """Play the round-robin among ``rungs`` (``random``, the anchor, must be one of them) and
    fit the ladder. Two players: ``games_per_pair`` games for every pair; more players:
    ``games_per_pair`` x rungs games at tables drawn from the rungs."""
    from plies.games.registry import state_class

    rungs = list(rungs)
    if ANCHOR not in rungs:
        raise ValueError(f"a ladder is anchored at {ANCHOR!r} = 0: include it among the rungs")
    players = state_class(game).initial(np.random.default_rng(0), **(options or {})).num_players
    total = games_per_pair if players == 2 else games_per_pair * len(rungs)
    result = run_tournament(game, rungs, total, seed=seed, workers=workers, opening_plies=opening_plies,
                            options=options, progress=progress)
    played = np.zeros(len(rungs), int)
    matches: list[list[int]] = []
    finishes: list[list[int]] = []
    if players == 2:
        matches = match_counts(result.records, rungs)
        fit = fit_ratings(matches, len(rungs), anchor=rungs.index(ANCHOR))
        for i, j, w, d, lo in matches:
            played[i] += w + d + lo
            played[j] += w + d + lo
    else:
        finishes = finish_rows(result.records, rungs)
        fit = fit_luce(finishes, len(rungs), anchor=rungs.index(ANCHOR))
        for row in finishes:
            np.add.at(played, row[:-1], 1)
    command = (f"plies rate --build --game {game} --games-per-pair {games_per_pair} --opening-plies "
               f"{opening_plies} --seed {seed} --rungs " + " ".join(rungs)
               + "".join(f" --option {k}={json.dumps(v)}" for k, v in (options or {}).items()))
    return Ladder(
        game=game,
        rungs=[Rung(s, round(float(fit.ratings[k]), 1), *(round(v, 1) for v in fit.interval(k)), int(played[k]))
               for k, s in enumerate(rungs)],
        nu=fit.nu,
        games_per_pair=games_per_pair,
        opening_plies=opening_plies,
        seed=seed,
        date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        command=command,
        matches=matches,
        options=dict(options or {}),
        finishes=finishes,
        players=players,
        **({} if players == 2 else {"model": "Luce's choice model for the winner (multi-player Bradley-Terry), "
                                              "Elo scale 400*log10, random = 0"}),
    )


def finish_rows(records: Sequence[GameRecord], agents: Sequence[str]) -> list[list[int]]:
    """Rows (agent index per seat..., winning seat) of the games with a single winner."""
    where = {a: k for k, a in enumerate(agents)}
    rows = []
    for record in records:
        returns = np.asarray(record.returns)
        best = np.flatnonzero(returns == returns.max())
        if len(best) == 1 and not record.truncated:
            rows.append([where[s] for s in record.seats] + [int(best[0])])
    return rows


# ----- placing an agent ---------------------------------------------------------------------


@dataclass
class Placement:
    spec: str
    rating: float
    low: float
    high: float
    games: int
    record: dict[str, list[int]]  # rung -> [wins, draws, losses] of the placed agent
    below: str | None  # the rung just below the rating (None: below them all)
    above: str | None

    def format(self, ladder: Ladder) -> str:
        where = (f"between {self.below} ({_rating_of(ladder, self.below):.0f}) and {self.above} "
                 f"({_rating_of(ladder, self.above):.0f})" if self.below and self.above
                 else f"above every rung (top: {self.below})" if self.below
                 else f"below every rung (bottom: {self.above})")
        lines = [f"{self.spec} on the {ladder.game} ladder: {self.rating:.0f}  95% interval "
                 f"[{self.low:.0f}, {self.high:.0f}] after {self.games} games; {where}"]
        for rung, (a, b, c) in self.record.items():
            if ladder.players == 2:
                lines.append(f"  vs {rung:28s} {a:4d} wins {b:4d} draws {c:4d} losses")
            else:
                lines.append(f"  with {rung:28s} {a:4d} games: {self.spec} won {b:4d}, {rung} won {c:4d}")
        return "\n".join(lines)


def renamed_spec(spec: str, name: str) -> str:
    """``spec`` with ``name=NAME`` added the way specs are written: after a colon when it has no
    parameters yet (``random:name=mine``), after a comma otherwise (``alphabeta:depth=1,name=mine``)."""
    from plies.agents.specs import parse_spec

    _, params = parse_spec(spec)
    return f"{spec},name={name}" if params else f"{spec}:name={name}"


def _rating_of(ladder: Ladder, spec: str | None) -> float:
    return next(r.rating for r in ladder.rungs if r.spec == spec)


def _nearest(ladder: Ladder, rating: float, count: int = 2) -> list[int]:
    order = np.argsort(np.abs(ladder.ratings() - rating), kind="stable")
    return [int(k) for k in order[:count]]


def place(ladder: Ladder, spec: str, width: float = 50.0, max_games: int = 400, batch: int = 8, seed: int = 0,
          workers: int = 1, progress: bool = True, nearest: int = 2) -> Placement:
    """Rate ``spec`` on ``ladder``: rounds of ``batch`` games (seat-swapped pairs) against each
    of the ``nearest`` rungs nearest the current estimate, until the 95% interval is within
    +-``width`` points or ``max_games`` are played (``nearest`` = every rung: no adaptation)."""
    from tqdm.auto import tqdm

    from plies.agents.specs import make as make_agent

    if not (math.isfinite(width) and width > 0):
        raise ValueError(f"width must be a positive number of rating points, got {width}")
    if isinstance(max_games, bool) or not isinstance(max_games, (int, np.integer)) or max_games < 2:
        raise ValueError(f"max_games must be a whole number of at least 2, got {max_games!r}")
    if not 1 <= nearest <= len(ladder.rungs):
        raise ValueError(f"nearest must be in 1..{len(ladder.rungs)} (the rungs), got {nearest}")
    if batch < 2 or batch % 2:
        raise ValueError(f"batch must be an even number >= 2 (seat-swapped pairs), got {batch}")
    make_agent(spec, game=ladder.game)  # a bad spec or game fails before any game
    specs, ratings = ladder.specs(), ladder.ratings()
    if spec in specs:
        raise ValueError(f"{spec!r} is a rung of the ladder; give it another name (e.g. "
                         f"{renamed_spec(spec, 'mine')}) or another spec")
    if ladder.players > 2:
        return _place_multi(ladder, spec, width, max_games, batch, seed, workers, progress)
    tally = np.zeros((len(specs), 3), int)
    estimate, se, played, round_index = 0.0, math.inf, 0, 0
    bar = tqdm(total=max_games, disable=not progress, desc=f"placing {spec}")
    try:
        while max_games - played >= 2 and Z95 * se > width:  # games go in seat-swapped pairs
            for k in _nearest(ladder, estimate, nearest):
                n = min(batch, max_games - played)
                if n < 2:
                    break
                n -= n % 2
                round_seed = int(np.random.SeedSequence([seed, round_index, k]).generate_state(1)[0])
                config = TournamentConfig(ladder.game, (spec, specs[k]), n, seed=round_seed,
                                          opening_plies=ladder.opening_plies, options=dict(ladder.options))
                for record in play_games(config, schedule(config), workers):
                    mine = record.seats.index(spec)
                    a, b = record.returns[mine], record.returns[1 - mine]
                    tally[k, 0 if a > b else 1 if a == b else 2] += 1
                played += n
                bar.update(n)
            round_index += 1
            met = tally.sum(axis=1) > 0
            estimate, se = fit_one(ratings[met], tally[met, 0], tally[met, 1], tally[met, 2], ladder.nu)
    finally:
        bar.close()
    below = [k for k in range(len(specs)) if ratings[k] <= estimate]
    above = [k for k in range(len(specs)) if ratings[k] > estimate]
    return Placement(
        spec=spec,
        rating=estimate,
        low=estimate - Z95 * se,
        high=estimate + Z95 * se,
        games=played,
        record={specs[k]: tally[k].tolist() for k in range(len(specs)) if tally[k].sum()},
        below=specs[max(below, key=lambda k: ratings[k])] if below else None,
        above=specs[min(above, key=lambda k: ratings[k])] if above else None,
    )


def _place_multi(ladder: Ladder, spec: str, width: float, max_games: int, batch: int, seed: int, workers: int,
                 progress: bool) -> Placement:
    """Placement in games of ``ladder.players`` seats: the agent against the players - 1 rungs
    nearest its estimate, every rotation of the seating per seed."""
    from tqdm.auto import tqdm

    n = ladder.players
    if len(ladder.rungs) < n - 1:
        raise ValueError(f"the ladder has {len(ladder.rungs)} rungs; {n} players need at least {n - 1}")
    specs, ratings = ladder.specs(), ladder.ratings()
    strength = 10 ** (ratings / 400)
    fields: list[float] = []
    won: list[int] = []
    together = np.zeros((len(specs), 3), int)  # games together, the agent won, the rung won
    estimate, se, played, round_index = 0.0, math.inf, 0, 0
    per_round = max(n, batch - batch % n)
    bar = tqdm(total=max_games, disable=not progress, desc=f"placing {spec}")
    try:
        while played + n <= max_games and Z95 * se > width:
            opponents = _nearest(ladder, estimate, n - 1)
            games = min(per_round, (max_games - played) // n * n)
            round_seed = int(np.random.SeedSequence([seed, round_index]).generate_state(1)[0])
            config = TournamentConfig(ladder.game, (spec, *(specs[k] for k in opponents)), games, seed=round_seed,
                                      opening_plies=ladder.opening_plies, options=dict(ladder.options))
            for record in play_games(config, schedule(config), workers):
                returns = np.asarray(record.returns)
                best = np.flatnonzero(returns == returns.max())
                played += 1
                bar.update(1)
                if len(best) != 1 or record.truncated:
                    continue
                winner = record.seats[int(best[0])]
                fields.append(float(sum(strength[specs.index(s)] for s in record.seats if s != spec)))
                won.append(int(winner == spec))
                for s in record.seats:
                    if s != spec:
                        k = specs.index(s)
                        together[k] += [1, int(winner == spec), int(winner == s)]
            round_index += 1
            if fields:
                estimate, se = fit_one_luce(np.array(fields), np.array(won, float))
    finally:
        bar.close()
    below = [k for k in range(len(specs)) if ratings[k] <= estimate]
    above = [k for k in range(len(specs)) if ratings[k] > estimate]
    return Placement(
        spec=spec, rating=estimate, low=estimate - Z95 * se, high=estimate + Z95 * se, games=played,
        record={specs[k]: together[k].tolist() for k in range(len(specs)) if together[k, 0]},
        below=specs[max(below, key=lambda k: ratings[k])] if below else None,
        above=specs[min(above, key=lambda k: ratings[k])] if above else None,
    )


def plot_placement(ladder: Ladder, placement: Placement | None, path: str | Path) -> None:
    """The rungs with their intervals and (if given) the placed agent, as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError('plotting a ladder needs matplotlib: pip install "plies[eval]"') from err
    rows = [(r.spec, r.rating, r.low, r.high, False) for r in ladder.rungs]
    if placement is not None:
        rows.append((placement.spec, placement.rating, placement.low, placement.high, True))
    rows.sort(key=lambda row: row[1])
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(rows) + 1.2))
    for y, (_, rating, low, high, mine) in enumerate(rows):
        color = "tab:red" if mine else "tab:blue"
        ax.errorbar(rating, y, xerr=[[rating - low], [high - rating]], fmt="o", color=color, capsize=3)
    ax.set_yticks(range(len(rows)), [row[0] for row in rows])
    ax.set_xlabel("rating (Elo scale, random = 0), 95% intervals")
    ax.set_title(f"{ladder.game} ladder ({ladder.date})" + (f": {placement.spec}" if placement else ""))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    try:
        atomic_write(path, lambda out: fig.savefig(out, format="png", dpi=110))
    finally:
        plt.close(fig)
