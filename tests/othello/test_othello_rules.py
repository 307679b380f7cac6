"""Rules, kernels, text in and out, observation and heuristics of the Othello GameState."""

import pickle

import numpy as np
import pytest

from plies.games.othello import OthelloState, rules

START = "......../......../......../...ox.../...xo.../......../......../........ x"

# black to move has no disc to bracket anything: its only disc, a6, looks at white lines that
# run into the edge; white can play a7 (flipping a6)
FORCED_PASS = "oooooooo/oooooooo/oooooooo/oooooooo/oooooooo/x......./......../........ x"

# black to play d3 (action 19): in each of the 8 directions, white discs closed off by a black
# one; e5 is white but lies on no line through d3, so it stays white
ALL_DIRECTIONS = (
    ".x.x.x../"  # b1 d1 f1
    "..ooo.../"  # c2 d2 e2
    "xoo.ox../"  # a3 (then b3 c3 white), e3 white, f3 black
    "..ooo.../"  # c4 d4 e4
    ".x.xox../"  # b5 d5 black, e5 white, f5 black
    "......../......../........ x"
)
AFTER_ALL_DIRECTIONS = ".x.x.x../..xxx.../xxxxxx../..xxx.../.x.xox../......../......../........"


def random_states(games: int, seed: int):
    """Every position of ``games`` random games (each a fresh GameState)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = OthelloState()
        yield state.clone()
        while not state.is_terminal():
            state.apply(int(rng.choice(state.legal_actions())))
            yield state.clone()


def test_start_position_as_openspiel_sets_it():
    s = OthelloState()
    assert s.to_string() == START
    assert s.current_player == 0 and s.disc_counts() == (2, 2)
    assert list(s.legal_actions()) == [19, 26, 37, 44]
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["d3", "c4", "f5", "e6"]
    assert s.num_actions == 65 and s.max_game_length == 128 and s.num_players == 2


def test_forced_pass_is_the_only_legal_action():
    s = OthelloState.from_string(FORCED_PASS)
    assert list(s.legal_actions()) == [rules.PASS]
    assert s.action_to_string(rules.PASS) == "pass" and s.string_to_action("PASS") == rules.PASS
    assert "must pass" in s.render_text()
    before = s.array.copy()
    s.apply(rules.PASS)
    assert s.current_player == 1 and np.array_equal(s.array[1:], before[1:])
    assert s.string_to_action("a7") == 48 and 48 in s.legal_actions()
    with pytest.raises(ValueError, match="illegal"):
        s.apply(rules.PASS)  # white can move, so it may not pass


def test_game_ends_with_empty_squares_when_neither_side_can_move():
    s = OthelloState.from_string(FORCED_PASS)
    s.apply(rules.PASS)
    s.apply(48)  # a7 flips black's last disc: black has no disc left, white nothing to flip
    assert s.is_terminal() and s.winner == 1
    assert s.disc_counts() == (0, 42)
    assert s.returns().tolist() == [-1.0, 1.0]
    assert list(s.legal_actions()) == []
    assert s.to_string().endswith(" -")
    s.undo()
    assert not s.is_terminal() and s.current_player == 1 and s.winner is None


def test_a_move_flips_in_all_eight_directions():
    s = OthelloState.from_string(ALL_DIRECTIONS)
    assert 19 in s.legal_actions()
    s.apply(s.string_to_action("d3"))
    assert s.to_string() == AFTER_ALL_DIRECTIONS + " o"
    assert s.disc_counts() == (18, 1)
    s.undo()
    assert s.to_string() == ALL_DIRECTIONS


def test_flips_stop_at_the_edge_and_at_empty_squares():
    # black plays a1: the row a1-h1 is white up to the edge (no flip), the column is closed by
    # black on a4 (flips), the diagonal starts with an empty square (no flip)
    text = ".ooooooo/o.o...../o..o..../x..ox.../...xo.../......../......../........ x"
    s = OthelloState.from_string(text)
    s.apply(0)
    assert s.to_string().split()[0].split("/")[:4] == ["xooooooo", "x.o.....", "x..o....", "x..ox..."]


def test_draw_on_equal_counts():
    # white to move fills h8 and flips g8: 32 discs each, no empty square left
    rows = ["xxxxxxxx"] * 4 + ["oooooooo"] * 3 + ["oooooox."]
    s = OthelloState.from_string("/".join(rows) + " o")
    s.apply(63)
    assert s.is_terminal() and s.winner is None and s.disc_counts() == (32, 32)
    assert s.returns().tolist() == [0.0, 0.0]


def test_undo_back_to_the_root_restores_the_array_exactly():
    rng = np.random.default_rng(3)
    for _ in range(40):
        s = OthelloState()
        root = s.array.copy()
        snapshots = []
        while not s.is_terminal():
            snapshots.append(s.array.copy())
            s.apply(int(rng.choice(s.legal_actions())))
        assert len(snapshots) <= s.max_game_length
        while snapshots:
            s.undo()
            assert np.array_equal(s.array, snapshots.pop())
        assert np.array_equal(s.array, root)


def test_apply_and_list_matches_apply_then_legal_actions():
    rng = np.random.default_rng(4)
    undo_a, undo_b = np.zeros(rules.UNDO_SIZE, np.int64), np.zeros(rules.UNDO_SIZE, np.int64)
    out_a, out_b = np.zeros(rules.NUM_ACTIONS, np.int64), np.zeros(rules.NUM_ACTIONS, np.int64)
    steps = 0
    for _ in range(100):
        a = rules.initial_array()
        b = a.copy()
        while a[0] != rules.TERMINAL:
            legal = out_a[: rules.legal_actions(a, out_a)].copy()
            action = int(rng.choice(legal))
            code = rules.apply_and_list(a, action, undo_a, out_a)
            rules.apply_action(b, action, undo_b)
            count = rules.legal_actions(b, out_b)
            assert np.array_equal(a, b) and np.array_equal(undo_a, undo_b)
            assert code >> 4 == count and (code & 15) - 4 == b[0]
            assert np.array_equal(out_a[:count], out_b[:count])
            steps += 1
    assert steps > 5000


def test_equal_positions_have_equal_hashes():
    # the same position by two move orders
    a, b = OthelloState(), OthelloState()
    for move in ("c4", "c3", "d3"):
        a.apply(a.string_to_action(move))
    for move in ("d3", "c3", "c4"):
        b.apply(b.string_to_action(move))
    assert a.to_string() == b.to_string() and a == b
    assert a.hash() == b.hash()
    assert OthelloState.from_string(a.to_string()).hash() == a.hash()
    # the same discs with the other side to move is another position
    other_side = OthelloState.from_string(a.to_string()[:-1] + "x")
    assert other_side.hash() != a.hash()


def test_distinct_positions_have_distinct_hashes():
    keys: dict[int, str] = {}
    for state in random_states(300, seed=5):
        text = state.to_string()
        assert keys.setdefault(state.hash(), text) == text
    assert len(keys) > 10_000


def test_text_round_trip_and_pickle():
    for state in random_states(30, seed=6):
        text = state.to_string()
        back = OthelloState.from_string(text)
        assert back.to_string() == text
        assert np.array_equal(back.array, state.array)
        assert list(back.legal_actions()) == list(state.legal_actions())
    loaded = pickle.loads(pickle.dumps(state))
    assert np.array_equal(loaded.array, state.array)


def test_from_string_accepts_newlines_capitals_and_spaces():
    text = "\n".join(["- - - - - - - -"] * 3 + ["- - - O X - - -", "- - - X O - - -"] + ["- - - - - - - -"] * 3)
    assert OthelloState.from_string(text + "\nX").to_string() == START


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "malformed"),
        (START[:-2], "malformed"),  # no side to move
        (START[:-1] + "b", "malformed"),
        (START.replace("/", "", 1), "8 rows of 8"),
        ("......./......../......../...ox.../...xo.../......../......../........ x", "8 rows of 8"),
        (START.replace("...ox...", "...oz..."), "bad cell"),
        (START.replace("...ox...", "...o...."), "centre"),
        (START.replace("........ x", "......xo x"), "cut off"),
        (START[:-1] + "-", "can still move"),
        ("/".join(["xxxxxxxx"] * 4 + ["oooooooo"] * 4) + " x", "neither player can move"),
    ],
)
def test_from_string_rejects_bad_text(text, message):
    with pytest.raises(ValueError, match=message):
        OthelloState.from_string(text)


def test_from_string_rejects_options_and_non_strings():
    with pytest.raises(ValueError, match="unknown option"):
        OthelloState.from_string(START, size=6)
    with pytest.raises(TypeError):
        OthelloState.from_string(None)


def test_action_names():
    s = OthelloState()
    assert [s.action_to_string(a) for a in (0, 7, 19, 56, 63, 64)] == ["a1", "h1", "d3", "a8", "h8", "pass"]
    assert s.string_to_action(" D3 ") == 19 and s.string_to_action("26") == 26
    with pytest.raises(ValueError, match="legal moves"):
        s.string_to_action("a1")
    with pytest.raises(ValueError):
        s.action_to_string(65)


def test_observation_planes():
    for state in random_states(5, seed=8):
        grid = state.grid()
        for seat in (0, 1):
            obs = state.observation(seat)
            assert obs.shape == (8, 8, 3) and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert np.array_equal(obs[..., 0], grid == seat + 1)
            assert np.array_equal(obs[..., 1], grid == 2 - seat)
            if state.is_terminal():
                assert not obs[..., 2].any()
            elif state.current_player == seat:
                moves = [a for a in list(state.legal_actions()) if a != rules.PASS]
                assert sorted(np.flatnonzero(obs[..., 2].ravel()).tolist()) == moves


def test_heuristics_are_antisymmetric_and_bounded():
    discs, mobility = OthelloState.game.heuristics["discs"], OthelloState.game.heuristics["mobility"]
    weights = mobility.params()
    assert weights.tolist() == [4.0, 2.0, 1.0]
    assert mobility.params({"corners": 0.0}).tolist() == [0.0, 2.0, 1.0]
    for state in random_states(20, seed=9):
        for heuristic, params in ((discs, discs.params()), (mobility, weights)):
            here = heuristic.kernel(state.array, 0, params)
            there = heuristic.kernel(state.array, 1, params)
            assert -1.0 < here < 1.0 and here == pytest.approx(-there)
    corner = OthelloState.from_string("xo....../oo....../..o...../...ox.../...xo.../......../......../........ o")
    only_corners = np.array([1.0, 0.0, 0.0])
    assert mobility.kernel(corner.array, 0, only_corners) == pytest.approx(0.25 / 2.0)


def test_render():
    s = OthelloState()
    assert "black (x) to move" in s.render_text()
    svg = s.svg()
    assert svg.count('data-cell="') == 64 and 'class="cell"' in svg
    image = s.render_rgb()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    dark = (image.max(axis=2) < 40).sum()  # the four centre discs: two black ...
    light = (image.min(axis=2) > 225).sum()  # ... and two white, on a green board
    assert dark > 500 and light > 500


def reference_flips(cells: list[int], square: int, mover: int) -> list[int]:
    """The discs a disc of ``mover`` (1 or 2) on ``square`` flips, square by square."""
    row, col = divmod(square, 8)
    flipped = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            line, r, c = [], row + dr, col + dc
            while 0 <= r < 8 and 0 <= c < 8 and cells[8 * r + c] == 3 - mover:
                line.append(8 * r + c)
                r, c = r + dr, c + dc
            if line and 0 <= r < 8 and 0 <= c < 8 and cells[8 * r + c] == mover:
                flipped += line
    return sorted(flipped)


def bits(squares) -> int:
    return rules._signed(sum(1 << s for s in squares))


def test_move_and_flip_kernels_match_a_square_by_square_reference_on_random_boards():
    rng = np.random.default_rng(10)
    checked = 0
    for _ in range(400):
        fill = rng.uniform(0.2, 0.95)
        cells = [0 if rng.random() > fill else int(rng.integers(1, 3)) for _ in range(64)]
        black = bits(i for i, v in enumerate(cells) if v == 1)
        white = bits(i for i, v in enumerate(cells) if v == 2)
        for mover, own, other in ((1, black, white), (2, white, black)):
            moves = rules.moves_of(own, other)
            for square in range(64):
                expected = reference_flips(cells, square, mover) if cells[square] == 0 else []
                is_move = bool((moves >> square) & 1)
                assert is_move == bool(expected), (cells, square, mover)
                if is_move:
                    assert rules.flips_of(own, other, square) == bits(expected)
                    checked += 1
    assert checked > 5000
