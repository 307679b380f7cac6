"""Dice Wars: areas on a hex map, attacks decided by dice, reinforcement by region size."""

from plies.envs.dice_wars.probabilities import (
    attack_success_probability,
    probability_of_holding_area,
)
from plies.envs.dice_wars.state import DiceWarsState

__all__ = ["DiceWarsState", "attack_success_probability", "probability_of_holding_area"]
