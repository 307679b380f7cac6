"""The conformance suite: ``check_game(game_id)`` tests that a registered game honours the
``Game`` contract, as PettingZoo's ``api_test`` does for an environment.

It plays seeded random games and checks, at every position it reaches:

- ``undo`` restores the position exactly: back to the root, ``encode()`` equals the root's;
- ``apply_and_list`` equals ``apply_action`` followed by ``legal_actions``;
- legal actions are distinct, inside ``range(num_actions)``, and agree with the mask;
  a position has none exactly when it is terminal; an illegal action is refused unchanged;
- ``to_string`` / ``from_string`` round-trips to an equal ``encode()`` and ``hash()``;
- equal positions have equal hashes; clones are independent of their original; states pickle;
- returns are zero before the end, zero-sum at the end where the game says so, and within
  ``value_bound``;
- chance outcomes are non-empty, legal, with probabilities that sum to 1;
- observations have ``observation_shape``, are finite and inside ``observation_bounds``;
- the batched env (``plies.envs.vector``) replays the same games as the GameState, step by step.

All problems found are reported together in one ``ContractViolation``.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from plies.games.game import Game
from plies.games.registry import get_game
from plies.games.state import GameState, sample_chance


class ContractViolation(AssertionError):
    """A game breaks the contract; the message lists every finding."""


class _Findings:
    def __init__(self, game: Game, limit: int = 20) -> None:
        self.game = game
        self.messages: list[str] = []
        self.limit = limit

    def add(self, check: str, message: str, state: GameState | None = None) -> None:
        if len(self.messages) < self.limit:
            where = f" at {state.to_string()!r}" if state is not None else ""
            self.messages.append(f"[{check}] {message}{where}")

    def raise_if_any(self) -> None:
        if self.messages:
            raise ContractViolation(
                f"{self.game.id} breaks the game contract in {len(self.messages)} place(s):\n  "
                + "\n  ".join(self.messages))


def check_game(game_id: str | Game, games: int = 50, seed: int = 0, max_plies: int = 300,
               batch_steps: int = 60, **options: Any) -> dict[str, int]:
    """Check that ``game_id`` honours the game contract (see the module docs).

    ``games`` random games from ``seed``, each cut after ``max_plies`` actions (chance outcomes
    included); ``batch_steps`` steps of a traced batch of 8 games (0 skips the batch check).
    Returns counts of what was checked; raises ``ContractViolation`` listing every finding."""
    game = game_id if isinstance(game_id, Game) else get_game(game_id)
    findings = _Findings(game)
    rng = np.random.default_rng(seed)
    counts = {"games": 0, "positions": 0, "terminals": 0, "chance_nodes": 0}
    seen_hashes: dict[bytes, int] = {}
    for _ in range(games):
        root = game.new_state(int(rng.integers(2**31)), **options)
        _check_static(game, root, findings)
        root_code = root.encode()
        state = root.clone()
        plies = 0
        while plies < max_plies:
            counts["positions"] += 1
            _check_position(game, state, findings, seen_hashes)
            if state.is_terminal():
                counts["terminals"] += 1
                break
            if state.is_chance_node():
                counts["chance_nodes"] += 1
                _check_chance(state, findings)
                action = sample_chance(state, rng)
            else:
                legal = state.legal_actions()
                action = int(legal[rng.integers(len(legal))])
            _check_step(game, state, action, findings)
            state.apply(action)
            plies += 1
        while state.history:
            state.undo()
        if not np.array_equal(state.encode(), root_code):
            findings.add("undo", f"undoing {plies} actions does not give back the root's encode()", root)
        counts["games"] += 1
    if batch_steps:
        try:
            counts.update(replay_batch(game, 8, batch_steps, seed=seed, **options))
        except AssertionError as error:
            findings.add("batch", str(error))
    findings.raise_if_any()
    return counts


def _check_static(game: Game, state: GameState, findings: _Findings) -> None:
    if type(state) is not game.state_class:
        findings.add("static", f"new_state gives a {type(state).__name__}, not {game.state_class.__name__}")
    if state.num_players < 1:
        findings.add("static", f"num_players is {state.num_players}")
    if state.max_legal_actions < 1:
        findings.add("static", f"max_legal_actions is {state.max_legal_actions}")
    if not state.is_terminal() and state.current_player >= state.num_players:
        findings.add("static", f"player {state.current_player} to move in a {state.num_players}-player game")
    for outside in (-1, state.num_actions, 2**62):  # numbers past the action space are not named
        try:
            text = state.action_to_string(outside)
        except (TypeError, ValueError):
            continue
        findings.add("static", f"action_to_string({outside}) names an action outside range({state.num_actions}): "
                               f"{text!r} (start it with action_in_range)")


def _check_position(game: Game, state: GameState, findings: _Findings, seen: dict[bytes, int]) -> None:
    legal = state.legal_array()
    if state.is_terminal():
        if len(legal):
            findings.add("legal", f"a terminal position lists {len(legal)} legal actions", state)
    elif not len(legal):
        findings.add("legal", "a running game has no legal action (a pass must be an action)", state)
    if len(legal) and (legal.min() < 0 or legal.max() >= state.num_actions):
        findings.add("legal", f"legal actions {legal.tolist()} leave range({state.num_actions})", state)
    if len(np.unique(legal)) != len(legal):
        findings.add("legal", f"legal actions {legal.tolist()} repeat", state)
    if len(legal) > state.max_legal_actions:
        findings.add("legal", f"{len(legal)} legal actions exceed max_legal_actions {state.max_legal_actions}", state)
    if not state.is_chance_node():
        mask = state.action_mask()
        if mask.shape != (state.num_actions,) or not np.array_equal(np.flatnonzero(mask), np.sort(legal)):
            findings.add("mask", "action_mask() disagrees with legal_actions()", state)

    problem = game.rows_problem(state.array[None])
    if problem:
        findings.add("rows", f"a position of play fails the game's own row check: {problem}", state)
    try:  # the constructor takes a user's array only after that check
        rebuilt = type(state)(state.array.copy())
    except Exception as error:  # noqa: BLE001 - any failure is a finding
        findings.add("rows", f"the state class refuses a position of play as an array: {error}", state)
    else:
        if not np.array_equal(rebuilt.array, state.array):
            findings.add("rows", "a state built from a position's array holds another array", state)

    code = state.encode()
    key = code.tobytes()
    hashed = state.hash()
    if seen.setdefault(key, hashed) != hashed:
        findings.add("hash", "equal encode() but different hash()", state)

    text = state.to_string()
    try:
        parsed = game.from_string(text)
    except Exception as error:  # noqa: BLE001 - any failure is a finding
        findings.add("text", f"from_string(to_string()) fails: {error}", state)
    else:
        if not np.array_equal(parsed.encode(), code):
            findings.add("text", "from_string(to_string()) changes encode()", state)
        elif parsed.hash() != hashed:
            findings.add("text", "from_string(to_string()) changes hash()", state)
        if parsed.to_string() != text:
            findings.add("text", f"to_string is not stable: {parsed.to_string()!r}", state)

    copy = state.clone()
    if len(legal) and not copy.is_terminal():
        copy.apply(int(legal[0]))
        if not np.array_equal(state.encode(), code):
            findings.add("clone", "playing on a clone changed the original", state)
    revived = pickle.loads(pickle.dumps(state))
    if not np.array_equal(revived.encode(), code) or revived.history != state.history:
        findings.add("pickle", "a pickled state does not come back equal", state)

    returns = state.returns()
    if returns.shape != (state.num_players,) or not np.all(np.isfinite(returns)):
        findings.add("returns", f"returns() is {returns}", state)
    elif not state.is_terminal():
        raw = np.full(state.num_players, np.nan)
        game.kernels.returns(state.array, raw)
        if np.any(raw != 0):
            findings.add("returns", f"the returns kernel gives {raw.tolist()} before the end", state)
    else:
        if np.max(np.abs(returns)) > state.value_bound + 1e-9:
            findings.add("returns", f"returns {returns.tolist()} exceed value_bound {state.value_bound}", state)
        if game.zero_sum and abs(float(returns.sum())) > 1e-9:
            findings.add("returns", f"returns {returns.tolist()} of a zero-sum game do not sum to 0", state)

    low, high = state.observation_bounds
    for seat in range(state.num_players):
        observation = state.observation(seat)
        if observation.shape != tuple(state.observation_shape) or observation.dtype != np.float32:
            findings.add("observe", f"observation({seat}) has shape {observation.shape} "
                         f"{observation.dtype}, not {tuple(state.observation_shape)} float32", state)
        elif not np.all(np.isfinite(observation)) or observation.min() < low or observation.max() > high:
            findings.add("observe", f"observation({seat}) leaves its bounds [{low}, {high}]: "
                         f"{observation.min()}..{observation.max()}", state)

    if not state.is_terminal():
        outside = state.num_actions
        before = state.encode()
        try:
            state.apply(outside)
        except ValueError:
            pass
        else:
            findings.add("illegal", f"apply({outside}) outside the action range was accepted", state)
        if not np.array_equal(state.encode(), before):
            findings.add("illegal", "a refused action changed the state", state)


def _check_chance(state: GameState, findings: _Findings) -> None:
    outcomes, probs = state.chance_outcomes()
    if not len(outcomes):
        findings.add("chance", "a chance node has no outcomes", state)
        return
    if abs(float(probs.sum()) - 1.0) > 1e-9 or np.any(probs <= 0):
        findings.add("chance", f"outcome probabilities {probs.tolist()} do not sum to 1", state)
    if not np.array_equal(np.sort(outcomes), np.sort(state.legal_actions())):
        findings.add("chance", "chance outcomes differ from legal_actions() at a chance node", state)


def _check_step(game: Game, state: GameState, action: int, findings: _Findings) -> None:
    """apply + undo restores the position; apply_and_list equals apply + legal_actions."""
    before = state.array.copy()
    undo_row = np.zeros(max(1, game.undo_size), np.int64)
    after = before.copy()
    game.kernels.apply_action(after, action, undo_row)
    restored = after.copy()
    game.kernels.undo_action(restored, action, undo_row.copy())
    if not np.array_equal(restored, before):
        findings.add("undo", f"undo_action({action}) does not restore the array", state)
    if game.apply_and_list is not None:
        width = state.max_legal_actions
        expected = np.empty(max(1, width), np.int64)
        count = game.kernels.legal_actions(after.copy(), expected)
        stepped = before.copy()
        listed = np.empty(max(1, width), np.int64)
        code = game.apply_and_list(stepped, action, np.zeros_like(undo_row), listed)
        if not np.array_equal(stepped, after):
            findings.add("step", f"apply_and_list({action}) plays differently from apply_action", state)
        elif (code >> 4) != count or not np.array_equal(listed[:count], expected[:count]) or (
                (code & 15) - 4) != after[0]:
            findings.add("step", f"apply_and_list({action}) lists other actions or another player", state)


def replay_batch(game_id: str | Game, num_envs: int, steps: int, seed: int = 0, parallel: bool = False,
                 **options: Any) -> dict[str, int]:
    """Step a traced batch of random games and replay every slot's trace through a GameState,
    comparing state rows, players, masks, observations, rewards and end flags after every
    step. Raises AssertionError at the first difference; returns counts of what it saw."""
    import plies.envs.vector as pv

    game = game_id if isinstance(game_id, Game) else get_game(game_id)
    batch = pv.make(game.id, num_envs, seed=seed, trace=100_000, parallel=parallel, **options)
    make_state: Callable[[np.ndarray], GameState] = game.state_class
    states: list[GameState | None] = [None] * num_envs
    done = [0] * num_envs
    decisions = [0] * num_envs
    stats = {"batch_ended": 0, "batch_truncated": 0, "batch_chance": 0}

    def expect(condition: bool, what: str, i: int) -> None:
        if not condition:
            raise AssertionError(f"batch slot {i}: {what}")

    for _ in range(steps):
        batch.step(batch.sample_actions())
        for i in range(num_envs):
            trace = batch.trace(i)
            new, done[i] = trace[done[i]:], len(trace)
            state = states[i]
            ended = False
            for k, entry in enumerate(new):
                if entry == pv.TRACE_RESET and state is None:
                    state = states[i] = make_state(batch.start_state(i))
                elif entry == pv.TRACE_RESET:
                    expect(k > 0 and not ended, "two resets in one step", i)
                    ended = True
                    if state.is_terminal():
                        expect(bool(batch.terminations[i]) and not batch.truncations[i],
                               "a finished game is not flagged terminated", i)
                        expect(np.allclose(batch.rewards[i], state.returns(), rtol=1e-6),
                               f"rewards {batch.rewards[i]} differ from returns {state.returns()}", i)
                        stats["batch_ended"] += 1
                    else:
                        expect(bool(batch.truncations[i]) and not batch.terminations[i],
                               "a game cut short is not flagged truncated", i)
                        expect(decisions[i] == batch.max_game_length, "truncated before max_game_length", i)
                        expect(not np.any(batch.rewards[i]), "a truncated game has rewards", i)
                        stats["batch_truncated"] += 1
                    state = states[i] = make_state(batch.start_state(i))
                    decisions[i] = 0
                else:
                    if state.is_chance_node():
                        stats["batch_chance"] += 1
                    else:
                        decisions[i] += 1
                    try:
                        state.apply(entry)
                    except ValueError as error:
                        raise AssertionError(f"batch slot {i} played what the GameState refuses: {error}") from None
            if not ended:
                expect(not batch.terminations[i] and not batch.truncations[i], "flagged ended but not reset", i)
                expect(not np.any(batch.rewards[i]), "rewards in a running game", i)
            expect(state.current_player >= 0, "waits on chance after a step", i)
            expect(np.array_equal(batch.states[i], state.array), "state row differs from the GameState", i)
            expect(batch.current_player[i] == state.current_player, "player to move differs", i)
            expect(np.array_equal(batch.action_mask[i], state.action_mask().astype(bool)), "mask differs", i)
            expect(np.array_equal(batch.observations[i], state.observation(state.current_player)),
                   "observation differs", i)
    return stats


__all__ = ["ContractViolation", "check_game", "replay_batch"]
