"""Raw values at the public entry points that once reached a kernel unchecked (2026-12-07):
state arrays given to the encoders and evaluators, seats, dice, weights, options. Each is now a
clear ValueError (tests/safety/test_fuzz.py checks in a subprocess that none kills the
interpreter)."""

from __future__ import annotations

import numpy as np
import pytest

import plies
from plies.agents.evaluator_specs import evaluator_for
from plies.agents.lookahead import scores_for
from plies.agents.specs import make
from plies.games.connect_four import rules as c4_rules
from plies.games.dice_wars import probability_of_holding_area
from plies.games.dice_wars import rules as dw_rules


def test_a_batch_of_rows_is_checked_against_the_game_before_its_kernels_read_it():
    game = plies.get_game("connect_four")
    start = plies.new_state("connect_four").array
    assert game.rows_problem(start[None]) is None
    assert "25 entries a row, not 24" in game.rows_problem(start[None, :-1])
    assert "2-d batch of integer rows" in game.rows_problem(start.astype(float)[None])
    huge = start.copy()
    huge[c4_rules.WIDTH] = 100
    assert "a 100x6 board does not fit" in game.rows_problem(np.stack([start, huge]))
    with pytest.raises(ValueError, match="state row 1: a 100x6 board"):
        game.encode(np.stack([start, huge]))
    small = plies.new_state("connect_four", width=4, height=4).array
    with pytest.raises(ValueError, match="one board size"):
        game.encode(np.stack([small, start]))
    mills = plies.get_game("nine_mens_morris")
    with pytest.raises(ValueError, match="at least 43 entries"):
        mills.encode(plies.new_state("nine_mens_morris").array[None, :40])
    # a game whose rows grow with its options: at least the slots before the first such slot
    assert mills.schema.fixed_prefix == mills.schema.offset("history") == 43
    assert "at least 43 entries a row, not 40" in mills.rows_problem(plies.new_state("nine_mens_morris").array[None, :40])


@pytest.mark.parametrize("slot, value, message", [
    (dw_rules.NUM_PLAYERS, 9, "number of players"), (dw_rules.NUM_AREAS, 10**6, "do not fit the row"),
    (dw_rules.TURN, 7, "whose turn"), (dw_rules.PHASE, 4, "its phase"), (dw_rules.AREAS, 5, "owner"),
])
def test_a_dice_wars_row_whose_values_would_be_indexed_out_of_bounds_is_refused(slot, value, message):
    row = plies.new_state("dice_wars", seed=0, num_players=4).array.copy()
    assert dw_rules.check_rows(row[None]) is None
    row[slot] = value
    with pytest.raises(ValueError, match=f"Dice Wars state row 0: .*{message}"):
        plies.get_game("dice_wars").encode(row[None])


def test_a_dice_wars_row_with_too_many_dice_or_a_neighbour_off_the_map_is_refused():
    clean = plies.new_state("dice_wars", seed=0, num_players=4).array
    n = int(clean[dw_rules.NUM_AREAS])
    dice = clean.copy()
    dice[dw_rules.AREAS + n] = 9
    assert "more than 8 dice" in dw_rules.check_rows(dice[None])
    neighbour = clean.copy()
    neighbour[dw_rules.AREAS + 3 * n] = n
    assert "not an area of the map" in dw_rules.check_rows(neighbour[None])


@pytest.mark.parametrize("game", ["connect_four", "othello", "backgammon", "dice_wars"])
def test_the_evaluators_take_only_seats_and_rows_of_their_game(game):
    state = plies.new_state(game, seed=0)
    evaluator = evaluator_for(state)
    assert np.isfinite(evaluator.evaluate(state.array[None], 0)).all()
    for seat in (-1, 10**9):
        with pytest.raises(ValueError, match="is not a seat"):
            evaluator.evaluate(state.array[None], seat)
    with pytest.raises(ValueError, match="root must be a seat"):
        evaluator.evaluate_all(state.array[None], 5, 2, True)
    with pytest.raises(ValueError):
        evaluator.evaluate(state.array[None, :3], 0)


def test_the_network_evaluators_check_rows_and_seats():
    from plies.agents.value_net import net_evaluator

    row = plies.new_state("backgammon", seed=0).array.copy()
    td80 = net_evaluator("backgammon", name="td80")
    assert np.isfinite(td80.evaluate(row[None], 0)).all()
    row[plies.games.backgammon.rules.ROLLER] = 10**9
    with pytest.raises(ValueError, match="the seat to roll is not 0 or 1"):
        td80.evaluate(row[None], 0)
    with pytest.raises(ValueError, match="mover must hold one seat"):  # the searches' path: the encoder
        plies.games.backgammon.features.encode(row[None])
    dice_wars = plies.new_state("dice_wars", seed=0, num_players=4).array
    with pytest.raises(ValueError, match="not a seat of these 4-player positions"):
        net_evaluator("dice_wars").evaluate(dice_wars[None], 4)


def test_holding_an_area_takes_dice_of_an_area_and_a_player_of_the_game():
    state = plies.new_state("dice_wars", seed=0, num_players=4)
    assert 0.0 <= probability_of_holding_area(state, 0, 0) <= 1.0
    assert probability_of_holding_area(state.array, 0, 0) == probability_of_holding_area(state, 0, 0)
    for args, message in (((0, 0, 10**12), "1 to 8 dice"), ((0, 0, 0), "1 to 8 dice"), ((0, 4), "not a seat"),
                          ((99, 0), "does not exist")):
        with pytest.raises(ValueError, match=message):
            probability_of_holding_area(state, *args)
    broken = state.array.copy()
    broken[dw_rules.AREAS] = 10**6
    with pytest.raises(ValueError, match="owner"):
        probability_of_holding_area(broken, 0, 0)


def test_the_lookahead_scores_take_a_seat_of_the_game():
    with pytest.raises(ValueError, match="is not a seat"):
        scores_for(plies.new_state("connect_four"), 10**9, 2)


def test_mcts_with_a_network_checks_each_board_size_it_meets():
    agent = make("mcts:simulations=20,eval=net", game="connect_four")
    assert agent.act(plies.new_state("connect_four")) in range(7)
    with pytest.raises(ValueError, match="takes 85 inputs; this game's encoder gives 33"):
        agent.act(plies.new_state("connect_four", width=4, height=4))


@pytest.mark.parametrize("weight", ["nan", "inf", "-inf"])
def test_heuristic_weights_are_finite(weight):
    with pytest.raises(ValueError, match="must be a finite number"):
        make(f"alphabeta:depth=2,eval=threats,weights=threats={weight}", game="connect_four").act(
            plies.new_state("connect_four"))


def test_dice_wars_maps_have_a_size_a_request_cannot_blow_up():
    for options, message in ((dict(rows=30000), "rows .* 1 to 128"), (dict(cols=129), "cols .* 1 to 128"),
                             (dict(num_areas=10**6), "num_areas .* 1 to 256"),
                             (dict(adjacency=[[1]] * 1000), "at most 256 areas")):
        with pytest.raises(ValueError, match=message):
            plies.new_state("dice_wars", seed=0, **options)


def test_small_helpers_refuse_what_they_would_wrap_around():
    from plies.agents.gnubg_agents import to_gnubg
    from plies.games.nine_mens_morris.symmetry import transform_action

    assert transform_action(3, 0) == 3
    for action, k in ((-5, 0), (600, 0), (3, 16), (3, -1)):
        with pytest.raises(ValueError, match="actions are 0..599"):
            transform_action(action, k)
    row = plies.new_state("backgammon", seed=0).array
    assert len(to_gnubg(row, 1)) == 2
    for bad_row, seat in ((row, 2), (row[:-1], 0)):
        with pytest.raises(ValueError, match="to_gnubg takes one backgammon state row"):
            to_gnubg(bad_row, seat)


def test_a_search_refuses_an_evaluator_of_another_game_or_board():
    from plies.agents.expectiminimax import ExpectiminimaxAgent
    from plies.classroom.backgammon import ValuePlayer

    dice_wars_score = evaluator_for(plies.new_state("dice_wars", seed=0), "score")
    with pytest.raises(ValueError, match="is dice_wars's, not connect_four's"):
        ExpectiminimaxAgent(evaluator=dice_wars_score).act(plies.new_state("connect_four"))
    network = evaluator_for(plies.new_state("connect_four"), "net")
    assert ExpectiminimaxAgent(evaluator=network).act(plies.new_state("connect_four")) in range(7)
    with pytest.raises(ValueError, match="takes 85 inputs; this position gives 109"):
        ExpectiminimaxAgent(evaluator=network).act(plies.new_state("connect_four", width=9, height=6))
    with pytest.raises(ValueError, match="'cells' is connect_four's, not backgammon's"):
        ValuePlayer("black", plies.get_game("connect_four").heuristics["cells"])
    with pytest.raises(ValueError, match="is backgammon's, not connect_four's"):
        ValuePlayer("black").act(plies.new_state("connect_four"))


def test_a_function_evaluator_must_give_one_finite_value_a_state():
    from plies.agents.evaluators import FunctionEvaluator

    states = np.stack([plies.new_state("tictactoe").array] * 3)
    assert FunctionEvaluator(lambda s, seat: np.zeros(len(s))).evaluate(states, 0).shape == (3,)
    for function in (lambda s, seat: np.full(len(s), np.nan), lambda s, seat: 0.5, lambda s, seat: None,
                     lambda s, seat: np.zeros(len(s) + 1)):
        with pytest.raises(ValueError, match="must return 3 finite values"):
            FunctionEvaluator(function).evaluate(states, 0)


def test_agents_choose_only_a_players_move():
    from plies.agents.random_agent import RandomAgent

    backgammon = plies.new_state("backgammon")  # the opening roll is to be drawn
    with pytest.raises(ValueError, match="the dice \\(chance\\) are to be drawn"):
        RandomAgent().act(backgammon)
    over = plies.new_state("tictactoe")
    for action in (0, 1, 3, 4, 6):
        over.apply(action)
    with pytest.raises(ValueError, match="the game is over"):
        make("alphabeta:depth=2", game="tictactoe").act(over)


def test_enumerating_a_game_without_a_length_bound_is_refused_not_run_past_its_buffers():
    from plies.agents.enumeration import count_outcomes
    from plies.classroom.tictactoe import CorrectedPlayer, CountingPlayer, loss_probability

    assert count_outcomes(plies.new_state("tictactoe")).tolist() == [131184, 77904, 46080]
    endless = plies.new_state("nine_mens_morris", repetition=0, no_mill=0, turn_cap=0)
    with pytest.raises(ValueError, match="games longer than its bound"):
        count_outcomes(endless)
    with pytest.raises(ValueError, match="plays tictactoe only"):
        CountingPlayer().act(plies.new_state("connect_four"))
    with pytest.raises(ValueError, match="seat is 0 \\(X\\) or 1 \\(O\\)"):
        loss_probability(CorrectedPlayer(), -1)


def test_heuristic_scales_divide_so_they_are_positive_and_course_maps_fit_their_grid():
    from plies.games.dice_wars.maps import course_cells

    with pytest.raises(ValueError, match="scale must be positive"):
        evaluator_for(plies.new_state("backgammon"), "pips", scale=0)
    with pytest.raises(ValueError, match="do not fit on a 4x4 grid"):
        course_cells(np.random.default_rng(0), 30, 4, 4)


def test_a_batched_opponent_policy_gives_one_legal_integer_action_a_game():
    from plies.envs.vector.gym import GymVectorEnv

    def policy(value):
        return lambda observations, masks: np.full(len(observations), value)

    good = GymVectorEnv("connect_four", num_envs=2, opponent=lambda o, m: np.argmax(m, axis=1), seed=0)
    good.reset(seed=0)
    good.step(np.zeros(2, np.int64))
    for value, message in ((-1, "actions are 0..6"), (2.9, "one integer action"), (99, "actions are 0..6")):
        env = GymVectorEnv("connect_four", num_envs=2, opponent=policy(value), seed=0)
        env.reset(seed=0)
        with pytest.raises(ValueError, match=message):
            env.step(np.zeros(2, np.int64))


def test_alphabeta_does_not_carry_one_board_sizes_table_to_another():
    from plies.agents.alphabeta import AlphaBetaAgent
    from plies.games.connect_four.state import ConnectFourState

    def position(width, height):
        state = ConnectFourState(width=width, height=height)
        for move in (0, 0, 0):
            state.apply(move)
        return state

    searched = AlphaBetaAgent(depth=20, seed=0)
    searched.search(position(4, 4))  # solves the small board: its keys are also 7x6 keys
    searched.depth = 3
    fresh = AlphaBetaAgent(depth=3, seed=0)
    assert searched.search(position(7, 6)).values == fresh.search(position(7, 6)).values


def test_the_classroom_morris_player_and_cache_take_only_morris_positions():
    from plies.classroom.nine_mens_morris import (
        AlphaBetaPruningRoteLearning,
        CacheRoteLearning,
        findSymmetries,
    )

    player = AlphaBetaPruningRoteLearning(limit=1)
    start = plies.new_state("nine_mens_morris")
    player.bestMoves(start)  # fills the cache, whose table a foreign array would be read into
    assert len(player.cache) > 0
    other = plies.new_state("connect_four")
    for call in (lambda: player.cache.read(other), lambda: CacheRoteLearning().read(other),
                 lambda: player.bestMoves(other), lambda: findSymmetries(other)):
        with pytest.raises(TypeError, match="Nine Men's Morris position is needed, got ConnectFourState"):
            call()


def test_a_ladder_file_with_numbers_placement_cannot_use_is_refused(tmp_path):
    import json

    from plies.evaluation.rating import Ladder

    shipped = Ladder.load("tictactoe")
    path = tmp_path / "ladder.json"
    shipped.save(path)
    assert Ladder.load(path).ratings().tolist() == shipped.ratings().tolist()
    good = json.loads(path.read_text())
    for change, message in (
        (lambda d: d["rungs"][1].update(rating=float("nan")), "not a finite number"),
        (lambda d: d["rungs"][1].update(high="1e3"), "not a finite number"),
        (lambda d: d["rungs"][1].update(games=-4), "games not >= 0"),
        (lambda d: d.update(nu=0.0), "draw parameter"),
        (lambda d: d.update(players=True), "players"),
        (lambda d: d["matches"].append([0, 99, 1, 0, 1]), "match row"),
        (lambda d: d["matches"].append([0, 1, 1.5, 0, 1]), "match row"),
        (lambda d: d.update(rungs=[]), "no rungs"),
    ):
        data = json.loads(json.dumps(good))
        change(data)
        path.write_text(json.dumps(data))  # json writes NaN, which json reads back as a float
        with pytest.raises(ValueError, match=message):
            Ladder.load(path)


def test_vector_actions_too_large_for_int64_are_refused_not_wrapped_to_sit_out():
    from plies.envs.vector import VectorGame

    batch = VectorGame("tictactoe", num_envs=2, seed=0)
    batch.reset()
    before = batch.states.copy()
    with pytest.raises(ValueError, match="out of range"):
        batch.step(np.array([2**64 - 1, 0], np.uint64))  # 2**64 - 1 would become -1, "sits out"
    assert (batch.states == before).all()
    batch.step(np.array([4, 4], np.uint64))
    assert (batch.states != before).any()


def test_a_dice_wars_adjacency_is_lists_of_area_numbers():
    from plies.games.dice_wars.maps import map_from_adjacency

    assert map_from_adjacency([[1], [0, 2], [1]]).adjacency == ((1,), (0, 2), (1,))
    assert map_from_adjacency({0: [1], 1: []}).adjacency == ((1,), (0,))
    assert map_from_adjacency({"1": [0], "0": []}).adjacency == ((1,), (0,))  # JSON's keys are strings
    for bad, message in (
        (["12", "0", "0"], "area 0's neighbours must be a list"),  # once read as areas 1 and 2
        ([[1.0], [0]], "must be an integer"),
        ([[True], [0]], "must be an integer"),
        ([["1"], [0]], "must be an integer"),
        ("01", "adjacency must be a list"),
        ({0: [1], "x": [0]}, "dict key"),
        ([[1], [5]], "areas are 0 to 1"),
    ):
        with pytest.raises(ValueError, match=message):  # a ValueError, which the CLI reports as one
            map_from_adjacency(bad)


@pytest.mark.parametrize("game", plies.game_ids())
def test_a_state_class_checks_the_array_it_is_given(game):
    state = plies.new_state(game, seed=0)
    cls = type(state)
    again = cls(state.array.copy())
    assert np.array_equal(again.array, state.array) and again.legal_actions() == state.legal_actions()
    for bad, message in ((state.array[:3], "entries a row"), (state.array[None], "1-d"),
                         (state.array.astype(float), "integer rows")):
        with pytest.raises(ValueError, match=message):
            cls(bad)
    row = state.array.copy()
    row[0] = 10**6  # the player to move, which the kernels index with (Dice Wars: its players)
    with pytest.raises(ValueError, match=f"{state.game.title} state row 0"):
        cls(row)


def test_the_row_checks_name_what_is_wrong():
    def refused(game, change):
        row = plies.new_state(game, seed=0).array.copy()
        change(row)
        return plies.get_game(game).rows_problem(row[None])

    from plies.games.backgammon import rules as bg
    from plies.games.nine_mens_morris import rules as nmm
    from plies.games.othello import rules as oth
    from plies.games.tictactoe import rules as ttt

    assert "not 0 (empty), 1 (X) or 2 (O)" in refused("tictactoe", lambda r: r.__setitem__(ttt.CELLS, 3))
    assert "move count" in refused("tictactoe", lambda r: r.__setitem__(ttt.MOVES, 2))
    assert "black and a white disc" in refused("othello", lambda r: r.__setitem__(oth.DISCS, r[oth.DISCS + 1]))
    assert "floats above an empty cell" in refused("connect_four", lambda r: r.__setitem__(c4_rules.STONES, 2))
    assert "not 15 checkers" in refused("backgammon", lambda r: r.__setitem__(bg.BOARD + 6, 6))
    assert "both sides hold a point" in refused("backgammon", lambda r: r.__setitem__(bg.BOARD + bg.SIDE + 19, 0)
                                                or r.__setitem__(bg.BOARD + bg.SIDE + 24, 0)
                                                or r.__setitem__(bg.BOARD + bg.SIDE + 1, 2))
    assert "board hash" in refused("nine_mens_morris", lambda r: r.__setitem__(nmm.BOARD_HASH, 5))

    def dice_wars_over(result):  # a finished game whose result the returns kernel indexes with
        return lambda r: (r.__setitem__(0, -4), r.__setitem__(dw_rules.PHASE, dw_rules.PHASE_OVER),
                          r.__setitem__(dw_rules.RESULT, result))

    assert "the result is not a player" in refused("dice_wars", dice_wars_over(10**12))
    assert refused("dice_wars", dice_wars_over(1)) is None
    assert "key stack" in refused("nine_mens_morris", lambda r: r.__setitem__(nmm.HIST_LEN, r[nmm.HIST_CAP]))
