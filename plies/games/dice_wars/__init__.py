"""Dice Wars: areas on a hex map, attacks decided by dice, reinforcement by region size."""

from plies.games.dice_wars.probabilities import attack_success_probability
from plies.games.dice_wars.state import DiceWarsState, probability_of_holding_area

__all__ = ["DiceWarsState", "attack_success_probability", "probability_of_holding_area"]
