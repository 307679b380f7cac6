"""The batch kernels of plies.vector.kernels bound to this game's rules (compiled once, cached)."""

from numba import njit

from plies.envs.othello import rules
from plies.vector.kernels import run_batch


@njit(cache=True)
def run(mode, ints, f32, f64, flags):
    return run_batch(
        rules.legal_actions, rules.apply_action, rules.returns, rules.chance_outcomes,
        rules.observe, mode, ints, f32, f64, flags,
    )
