"""Self-play throughput of the training engine against a per-game loop in Python.

Both play the same kind of games: at every move each legal action is applied, the network
scores the results from the mover's view, the best is played (5% random moves, 4 random plies
to start). Three ways, in one run, positions per second:

1. ``engine``: ``plies.training.engine.selfplay``: up to 256 games at once on ``plies.vector``,
   each step's candidates of every game scored in one batched numpy pass of the network;
2. ``loop + torch``: a Python loop over ``GameState`` (clone, apply), one torch forward pass
   over each move's candidates (the classic trainer's loop);
3. ``loop + kernel``: the same loop, each candidate scored by the compiled ``net_value`` called
   from Python;
4. ``vector + torch``: the engine's way with torch's forward pass instead of numpy's, ``--vector``
   games kept running (no game count to finish, so no tail of a few last games).

Every way runs its matrix products on one thread (the engine's workers do).

    python -m benchmarks.bench_selfplay [--games connect_four othello] [--hidden 128] [--count 200]
                                        [--vector 256]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from plies import vector
from plies.agents.value_net import MLPValueNet
from plies.games.kernels import compiled, kernel_refs
from plies.games.registry import get_game, new_state
from plies.training import engine


def vector_torch(game_id: str, model, num_envs: int, positions: int, seed: int) -> int:
    """Self-play on the batched env, one forward pass a step; returns the positions played."""
    game = get_game(game_id)
    env = vector.make(game_id, num_envs, seed=seed)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    width = new_state(game_id, seed=0).max_legal_actions
    out = np.zeros((num_envs * width, env.states.shape[1]), np.int64)
    owner, actions = np.zeros(len(out), np.int64), np.zeros(len(out), np.int64)
    ret = np.zeros(len(out))
    legal_buf, undo_row = np.zeros(width, np.int64), np.zeros(max(1, game.undo_size), np.int64)
    plies = np.zeros(num_envs, np.int64)
    played = 0
    while played < positions:
        n = compiled(engine.list_candidates)(np.ascontiguousarray(env.states), kernel_refs(game.kernels), out,
                                             owner, actions, ret, legal_buf, undo_row, np.zeros(2))
        values = ret[:n].copy()
        open_rows = np.flatnonzero(np.isnan(values))
        if len(open_rows):
            with torch.no_grad():
                v = model(torch.from_numpy(game.encode(out[open_rows]))).numpy().astype(np.float64)
            same = out[open_rows, 0] == env.states[owner[open_rows], 0]  # the mover moves again
            values[open_rows] = np.where(same, v, -v)
        best = np.full(num_envs, -np.inf)
        np.maximum.at(best, owner[:n], values)
        pick = np.full(num_envs, -1)
        top = np.flatnonzero(values >= best[owner[:n]])
        pick[owner[top]] = actions[top]
        explore = (plies < 4) | (rng.random(num_envs) < 0.05)
        if explore.any():
            pick[explore] = env.sample_actions()[explore]
        env.step(pick)
        plies = np.where(env.terminations | env.truncations, 0, plies + 1)
        played += num_envs
    return played


def python_loop(game_id: str, model, params: np.ndarray, games: int, use_torch: bool, seed: int) -> int:
    game = get_game(game_id)
    rng = np.random.default_rng(seed)
    positions = 0
    for _ in range(games):
        state = new_state(game_id, seed=0)
        plies = 0
        while not state.is_terminal():
            mover = state.current_player
            legal = state.legal_actions()
            children = []
            for action in legal:
                child = state.clone()
                child.apply(int(action))
                children.append(child)
            values = np.empty(len(children))
            open_rows = [k for k, c in enumerate(children) if not c.is_terminal()]
            for k, c in enumerate(children):
                if c.is_terminal():
                    values[k] = c.returns()[mover]
            if open_rows:
                if use_torch:
                    x = game.encode(np.stack([children[k].array for k in open_rows]))
                    with torch.no_grad():
                        v = model(torch.from_numpy(x)).numpy()
                    values[open_rows] = -v  # the child's mover is the opponent
                else:
                    for k in open_rows:
                        values[k] = game.net_value(children[k].array, mover, params)
            if plies < 4 or rng.random() < 0.05:
                action = int(rng.choice(legal))
            else:
                action = int(legal[int(np.argmax(values))])
            state.apply(action)
            positions += 1
            plies += 1
    return positions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=["connect_four", "othello"])
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--count", type=int, default=200, help="games per measurement")
    p.add_argument("--vector", type=int, default=256, help="games at once on the batched env")
    args = p.parse_args()
    torch.set_num_threads(1)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; hidden {args.hidden}")
    print("| game | engine (positions/s) | loop + torch | loop + kernel | vector + torch | engine / loop + torch | "
          "engine / loop + kernel | engine / vector + torch |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for game_id in args.games:
        state = new_state(game_id, seed=0)
        inputs = get_game(game_id).encode(state.array[None]).shape[1]
        torch.manual_seed(0)
        model = MLPValueNet(game=game_id, inputs=inputs, hidden=[args.hidden]).eval()
        params = model.flat_params()
        engine.selfplay(game_id, {}, params, 2, 0.05, 4, (0,))  # compile outside the timing
        python_loop(game_id, model, params, 1, True, 0)
        vector_torch(game_id, model, 4, 8, 0)
        rates = []
        t = time.perf_counter()
        out = engine.selfplay(game_id, {}, params, args.count, 0.05, 4, (1,))
        rates.append(len(out["positions"]) / (time.perf_counter() - t))
        small = max(1, args.count // 10)
        for use_torch in (True, False):
            t = time.perf_counter()
            n = python_loop(game_id, model, params, small, use_torch, 1)
            rates.append(n / (time.perf_counter() - t))
        t = time.perf_counter()
        n = vector_torch(game_id, model, args.vector, len(out["positions"]), 1)  # as many positions
        rates.append(n / (time.perf_counter() - t))
        print(f"| {game_id} | {rates[0]:,.0f} | {rates[1]:,.0f} | {rates[2]:,.0f} | {rates[3]:,.0f} | "
              f"{rates[0] / rates[1]:.1f}x | {rates[0] / rates[2]:.1f}x | {rates[0] / rates[3]:.1f}x |")


if __name__ == "__main__":
    main()
