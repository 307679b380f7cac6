"""pgx: JAX games, vmapped over the batch; the random policy and auto-reset run inside one jitted
``fori_loop``, so Python never runs between its steps (its best case on the CPU)."""

from __future__ import annotations

from benchmarks.timing import Unavailable, Workload

NAME = "pgx"
GAMES = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four", "backgammon": "backgammon",
         "othello": "othello"}
LABELS = {"vector": "pgx, vmapped and jitted on the CPU"}


def missing() -> str | None:
    try:
        import jax  # noqa: F401
        import pgx  # noqa: F401
    except ImportError as error:
        return f"{error} (pip install pgx; or the bench extra)"
    return None


def same_as(kind: str, variant: str) -> str:
    return variant


def batched(game: str, batch: int, repeats: int = 50) -> Workload:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(GAMES[game])
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(_, carry):
        state, key = carry
        key, action_key, step_key = jax.random.split(key, 3)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        action = jax.random.categorical(action_key, logits, axis=-1)
        return step(state, action, jax.random.split(step_key, batch)), key

    @jax.jit
    def loop(state, key):
        return jax.lax.fori_loop(0, repeats, body, (state, key))

    key = jax.random.PRNGKey(0)
    carry = [jax.jit(jax.vmap(env.init))(jax.random.split(key, batch)), key]

    def run() -> int:
        state, key = loop(*carry)
        jax.block_until_ready(state)
        carry[:] = [state, key]
        return repeats * batch

    return run


def workload(kind: str, game: str, variant: str) -> Workload:
    if kind not in LABELS or game not in GAMES:
        raise Unavailable(f"pgx has no {kind} measurement of {game}")
    return batched(game, int(variant))
