"""Nine Men's Morris."""

from plies.games.nine_mens_morris.state import OPENSPIEL_OPTIONS, NineMensMorrisState

__all__ = ["NineMensMorrisState", "OPENSPIEL_OPTIONS"]
