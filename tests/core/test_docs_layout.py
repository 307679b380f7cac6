"""Each game's docs page shows the state layout generated from its slot schema."""

from pathlib import Path

import pytest

import plies

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("game", plies.game_ids())
def test_docs_page_carries_the_schema_table(game):
    declared = plies.get_game(game)
    page = (DOCS.parent / declared.docs).read_text()
    assert declared.schema.table() in page, (
        f"{declared.docs} lacks the layout table of {game}'s SCHEMA; paste "
        f"plies.get_game({game!r}).schema.table() between its layout markers")


def test_schema_offsets_follow_slot_sizes():
    from plies.games.game import Slot, SlotSchema

    schema = SlotSchema(Slot("player"), Slot("cells", 9), Slot("moves"), Slot("tail", "n"), Slot("after"))
    assert schema.offsets("player", "cells", "moves", "tail") == (0, 1, 10, 11)
    assert schema.size is None
    with pytest.raises(KeyError, match="after"):
        schema.offset("after")
    with pytest.raises(ValueError, match="player"):
        SlotSchema(Slot("cells", 9))
