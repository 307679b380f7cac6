"""The SVG drawings: well-formed, with the parts the issue asks for and the web app clicks on."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from plies.games.backgammon.state import BackgammonState
from plies.games.connect_four.state import state_from_moves
from plies.games.dice_wars.state import DiceWarsState
from plies.games.nine_mens_morris.state import NineMensMorrisState
from plies.games.tictactoe.state import TicTacToeState

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(NS + "text")]


def with_data(root: ET.Element, key: str) -> list[ET.Element]:
    return [e for e in root.iter() if f"data-{key}" in e.attrib]


def test_tictactoe_cells_and_free_coordinates():
    root = parse(TicTacToeState.from_string("X../.O./...").svg())
    assert [int(e.get("data-cell")) for e in with_data(root, "cell")] == list(range(9))
    # free cells show the number that plays them; taken ones do not
    assert {"1", "2", "3", "5", "6", "7", "8"} <= set(texts(root)) and "0" not in texts(root)
    assert "X to move" in texts(root)


def test_connect_four_columns_numbers_and_last_stone():
    state = state_from_moves("4453")
    root = parse(state.svg())
    assert [int(e.get("data-col")) for e in with_data(root, "col")] == list(range(7))
    assert [str(c) for c in range(1, 8)] == texts(root)[:7]
    stones = [c for c in root.iter(NS + "circle") if c.get("fill") in ("#d21e1e", "#f0c814")]
    assert len(stones) == 4
    ring = [c for c in root.iter(NS + "circle") if c.get("stroke") == "#fff"]
    assert len(ring) == 1 and float(ring[0].get("cx")) == 2.5 * 60  # column 3 was played last


def test_connect_four_marks_the_winning_four():
    root = parse(state_from_moves("1212121").svg())
    marks = [c for c in root.iter(NS + "circle") if c.get("fill") == "#222"]
    assert len(marks) == 4 and "X wins" in texts(root)


def test_nine_mens_morris_labels_and_points():
    root = parse(NineMensMorrisState().svg())
    names = {e.get("data-name") for e in with_data(root, "point")}
    assert len(names) == 24 and {"a1", "a7", "g1", "g7", "d2"} <= names
    labels = set(texts(root))
    assert set("abcdefg") <= labels and {str(r) for r in range(1, 8)} <= labels


def test_backgammon_numbers_from_the_viewer_side():
    state = BackgammonState()
    state.apply(BackgammonState.opening_outcome(3, 1))
    for viewer in (0, 1):
        root = parse(state.svg(viewer=viewer))
        points = [int(e.get("data-point")) for e in with_data(root, "point")]
        assert sorted(points) == list(range(26))  # off (0), 1-24, the bar (25)
        assert {str(p) for p in range(1, 25)} <= set(texts(root))
        assert "X to play 3-1" in texts(root)
        assert any(t and "167 pips" in t for t in texts(root))
        dice = [g for g in root.iter(NS + "g") if g.get("class") == "die"]
        assert len(dice) == 2
    # the viewer's 24-point holds its own two back checkers, drawn in its colour on the upper right
    x_view = parse(state.svg(viewer=0))
    o_view = parse(state.svg(viewer=1))
    light = [c for c in x_view.iter(NS + "circle") if c.get("fill") == "#f5f2e6"]
    dark = [c for c in o_view.iter(NS + "circle") if c.get("fill") == "#2b2b2b"]
    assert max(float(c.get("cx")) for c in light if float(c.get("cy")) < 100) == pytest.approx(
        max(float(c.get("cx")) for c in dark if float(c.get("cy")) < 100))


def test_backgammon_used_dice_fade():
    state = BackgammonState.from_string("X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to play 6-5 left 5")
    dice = [g for g in parse(state.svg()).iter(NS + "g") if g.get("class") == "die"]
    assert [g.get("opacity") for g in dice] == ["0.35", "1"]


def test_dice_wars_hexagons_areas_and_last_battle():
    state = DiceWarsState.initial(np.random.default_rng(0))
    attack = int(state.legal_actions()[0])
    source, target = divmod(attack, state.num_areas)
    root = parse(state.svg(last_battle=(source, target)))
    areas = with_data(root, "area")
    assert sorted(int(e.get("data-area")) for e in areas) == list(range(state.num_areas))
    cells = state.cells
    for e in areas:  # one hexagon (6 corners) per land cell of the area
        path = e.get("d")
        assert path.count("Z") == int((cells == int(e.get("data-area"))).sum())
        assert path.count("L") == 5 * path.count("Z")
    legend = [t for t in texts(root) if t and "largest region" in t]
    assert len(legend) == 4 and legend[0].endswith("(to move)") and not legend[1].endswith("(to move)")
    assert any("reserve 0" in (t or "") for t in texts(root))
    assert len([e for e in root.iter(NS + "line") if e.get("class") == "last-battle"]) == 1


def test_dice_wars_graph_map():
    state = DiceWarsState.from_string("players=2 turn=0 areas=0:3,1:3,0:2 adjacency=1/0,2/1")
    root = parse(state.svg())
    assert len(with_data(root, "area")) == 3


@pytest.mark.parametrize("make", [
    TicTacToeState, NineMensMorrisState, BackgammonState,
    lambda: state_from_moves("44"), lambda: DiceWarsState.initial(np.random.default_rng(1)),
])
def test_rgb_is_the_rasterised_drawing(make):
    pytest.importorskip("resvg_py")
    from plies.games.drawing import rasterise

    state = make()
    image = state.render_rgb()
    assert image.dtype == np.uint8 and image.shape[2] == 3
    root = parse(state._repr_svg_())
    assert image.shape[:2] == (int(root.get("height")), int(root.get("width")))
    assert np.array_equal(image, rasterise(state.svg()))
    assert image.reshape(-1, 3).std(axis=0).max() > 20  # drawn, not blank


def test_aec_env_shows_itself_as_svg():
    import plies

    env = plies.make("connect_four")
    env.reset(seed=0)
    env.step(3)
    assert env._repr_svg_() == env.game_state.svg()


def test_single_agent_env_shows_itself_as_svg():
    import gymnasium

    import plies  # noqa: F401 - registers the ids

    env = gymnasium.make("plies/TicTacToe-v0", seat=0).unwrapped
    env.reset(seed=0)
    env.step(4)
    assert env._repr_svg_() == env.game_state.svg() and "<svg" in env._repr_svg_()


def test_batched_env_shows_its_first_game_as_svg():
    import plies.envs.vector as pv

    batch = pv.make("connect_four", 4, seed=0)
    batch.step(batch.sample_actions())
    assert batch._repr_svg_() == batch.game_state(0).svg()
