"""Exact battle probabilities of Dice Wars.

A battle rolls ``a`` six-sided dice for the attacker and ``d`` for the defender; the attacker
wins only with a strictly greater sum. The table is computed once from exact integer counts of
the sums (convolution of the single-die distribution), so entries are exact fractions rounded
to float64 only at the end.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

MAX_DICE = 8


def sum_counts(num_dice: int) -> list[int]:
    """counts[s] = number of the 6**num_dice rolls whose sum is s."""
    counts = [1]
    for _ in range(num_dice):
        nxt = [0] * (len(counts) + 6)
        for total, ways in enumerate(counts):
            for face in range(1, 7):
                nxt[total + face] += ways
        counts = nxt
    return counts


def attack_success_fraction(attacker_dice: int, defender_dice: int) -> Fraction:
    """P(sum of attacker_dice d6 > sum of defender_dice d6) as an exact fraction."""
    att = sum_counts(attacker_dice)
    dfn = sum_counts(defender_dice)
    wins = 0
    below = 0  # number of defender rolls with a sum strictly below the current total
    for total, ways in enumerate(att):
        wins += ways * below
        if total < len(dfn):
            below += dfn[total]
    return Fraction(wins, 6 ** (attacker_dice + defender_dice))


def _table() -> np.ndarray:
    table = np.zeros((MAX_DICE + 1, MAX_DICE + 1), np.float64)
    for a in range(1, MAX_DICE + 1):
        for d in range(1, MAX_DICE + 1):
            table[a, d] = float(attack_success_fraction(a, d))
    return table


ATTACK_WIN = _table()
"""ATTACK_WIN[a, d] = P(a dice beat d dice); row/column 0 unused (zero)."""


def attack_success_probability(attacker_dice: int, defender_dice: int) -> float:
    """Exact probability that ``attacker_dice`` dice beat ``defender_dice`` dice (1-8 each)."""
    for label, value in (("attacker_dice", attacker_dice), ("defender_dice", defender_dice)):
        if not 1 <= int(value) <= MAX_DICE:
            raise ValueError(f"{label}={value} is out of range; dice counts are 1 to {MAX_DICE}")
    return float(ATTACK_WIN[int(attacker_dice), int(defender_dice)])
