"""The ``plies`` command: play, tournament, report, rate, solve, train, games, agents."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from plies.agents.specs import UntrustedSpecError, available_agents, check_untrusted, describe
from plies.agents.specs import make as make_agent
from plies.games.registry import DEMO_GAME, game_ids, get_game

MIN_FPS, MAX_FPS = 0.01, 100  # a GIF frame lasts 10 ms to 100 s

DEFAULT_TOURNAMENT = {
    "game": DEMO_GAME,
    "agents": ["random", "lookahead:depth=2", "alphabeta:depth=2", "perfect"],
    "games": 20,
    "opening_plies": 1,
}
"""What ``plies tournament`` plays when no game and agents are given."""


def _parse_options(pairs: Sequence[str]) -> dict:
    """``--option key=value`` pairs; values are read as JSON when they parse (4, true, "x") and
    kept as text otherwise; each game converts them to its options' types (plies.games.options)."""
    options: dict = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq:
            raise ValueError(f"malformed --option {pair!r}: write key=value")
        if key in options:
            raise ValueError(f"--option {key} is given twice")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _check_game(game: str) -> None:
    get_game(game)  # a ValueError naming the games for an unknown id


def _fill_from_results(args: argparse.Namespace) -> None:
    """``--resume`` with a results file: what the command line leaves out comes from the
    configuration stored in the file (what it gives must match it, ResultStore checks)."""
    from plies.evaluation import ResultStore

    stored = ResultStore.read_config(args.results)
    if args.game is None:
        args.game = stored["game"]
    if args.agents is None:
        args.agents = _stored_agents(stored["agents"], args.results)
    if args.games is None:
        args.games = stored["games"]
    if args.seed is None:
        args.seed = stored.get("seed", 0)
    if args.opening_plies is None:
        args.opening_plies = stored.get("opening_plies", 0)
    if args.focus is None:
        args.focus = stored.get("focus")
    if args.clock is None and stored.get("clock"):
        args.clock = "{}+{}".format(*stored["clock"])
    if not args.option:
        args.stored_options = dict(stored.get("options") or {})


def _stored_agents(specs: object, path: str) -> list[str]:
    """The agent specs a results file holds, refused when one would import code or name a file: a
    shared or edited file must not run anything (specs typed with --agents are the user's own)."""
    if not isinstance(specs, list) or not all(isinstance(spec, str) for spec in specs):
        raise ValueError(f"{path}: its stored agents are not a list of agent specs ({specs!r})")
    for spec in specs:
        try:
            check_untrusted(spec, f"the results file {path}")
        except UntrustedSpecError as err:
            raise UntrustedSpecError(
                f"{err}. If you trust the file, give its agents on the command line instead: --agents "
                "SPEC SPEC ... (they must match the ones it stores)") from None
    return list(specs)


def cmd_tournament(args: argparse.Namespace) -> int:
    from plies.evaluation import run_tournament

    if args.resume and not args.results:
        raise ValueError("--resume continues the tournament stored in --results FILE: give the file")
    if args.resume and Path(args.results).exists():
        _fill_from_results(args)
    game = args.game or DEFAULT_TOURNAMENT["game"]
    _check_game(game)
    agents = args.agents or (DEFAULT_TOURNAMENT["agents"] if not args.game else None)
    if not agents:
        raise ValueError("give the agents to play: --agents SPEC SPEC ...")
    for spec in agents:  # a wrong name, parameter, game or file is an error before any game
        make_agent(spec, seed=0, game=game)
    games = args.games if args.games is not None else DEFAULT_TOURNAMENT["games"]
    opening = args.opening_plies if args.opening_plies is not None else (
        DEFAULT_TOURNAMENT["opening_plies"] if not args.game else 0)
    check_count("--games", games, 1)
    check_count("--opening-plies", opening, 0)
    if args.workers is not None:
        check_count("--workers", args.workers, 1)
    clock = _parse_clock(args.clock) if args.clock else None
    options = getattr(args, "stored_options", None)
    if options is None:
        options = _parse_options(args.option)
    try:
        result = run_tournament(
            game, agents, games, seed=args.seed if args.seed is not None else 0, workers=args.workers,
            results=args.results, resume=args.resume, opening_plies=opening, focus=args.focus,
            options=options, progress=not args.quiet, backend=args.backend, clock=clock,
            schedule=args.schedule,
        )
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: say what was kept and how to go on, not a traceback
        from plies.evaluation.interrupts import exit_status

        kept = (f"the finished games are in {args.results}; the same command with --resume goes on"
                if args.results else "no games were kept (--results FILE keeps them)")
        print(f"\ninterrupted: {kept}", file=sys.stderr)
        return exit_status(stop)
    _print_and_export(result.table(), result.records, result.config.as_dict(), args)
    _print_forfeits(result.records)
    return 0


def check_count(option: str, value: int, least: int) -> None:
    if value < least:
        raise ValueError(f"{option} must be an integer >= {least}, not {value}")


def _print_forfeits(records) -> None:
    """Per agent that forfeited games: how many, and the first reason."""
    forfeits: dict[str, list[str]] = {}
    for record in records:
        for spec, error in zip(record.seats, getattr(record, "errors", []) or []):
            if error:
                forfeits.setdefault(spec, []).append(error)
    for spec, errors in forfeits.items():
        print(f"{spec} forfeited {len(errors)} game(s); first: {errors[0]}")


def _parse_clock(text: str) -> tuple[float, float]:
    import math

    start, _, increment = text.partition("+")
    try:
        clock = float(start), float(increment or 0)
    except ValueError:
        clock = None
    if clock is None or not all(math.isfinite(x) and x >= 0 for x in clock) or clock[0] + clock[1] <= 0:
        raise ValueError(f"malformed --clock {text!r}: write START+INCREMENT, finite seconds >= 0 "
                         "(not both 0), e.g. 10+0.25")
    return clock


def _print_and_export(table, records, config: dict, args: argparse.Namespace) -> None:
    try:
        from plies.evaluation.report import format_summary

        print(format_summary(table, records))
    except ImportError:
        print(table.format())
        print('(install "plies[eval]" for 95% intervals and ratings)')
    from plies.evaluation import report

    if args.plot:
        report.plot_heatmap(table, args.plot, title=f"{config['game']}: score of the row agent (win 1, draw 1/2)")
        print(f"heatmap written to {args.plot}")
    if args.csv:
        report.export_csv(table, records, args.csv)
        print(f"table written to {args.csv}")
    if args.json:
        report.export_json(table, records, args.json, config)
        print(f"table and games written to {args.json}")


def cmd_report(args: argparse.Namespace) -> int:
    from plies.evaluation import ResultStore, WinRateTable
    from plies.evaluation.tournament import TournamentConfig, schedule

    config = ResultStore.read_config(args.results)
    store = ResultStore(args.results, config, resume=True)
    try:
        records = list(store.records())
    finally:
        store.close()
    table = WinRateTable.from_records(records, config["agents"])
    planned = len(schedule(TournamentConfig.from_dict(config)))
    print(f"{config['game']}: {table.games} games stored")
    if len(records) < planned:
        print(f"INCOMPLETE: {len(records)} of {planned} games played; continue it with "
              f"`plies tournament --results {args.results} --resume`")
    _print_and_export(table, records, config, args)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from plies.agents.specs import make as make_agent
    from plies.evaluation.interrupts import remembered_stops
    from plies.play.match import Match
    from plies.play.terminal import human_seats_ok, play_in_terminal

    _check_game(args.game)
    if args.record and not args.record.lower().endswith(".gif"):
        raise ValueError(f"--record writes GIF files; give a name ending in .gif, not {args.record!r}")
    if args.record:  # checked before the game: a replay refused after it would be lost
        if not (math.isfinite(args.fps) and MIN_FPS <= args.fps <= MAX_FPS):
            raise ValueError(f"--fps must be a number from {MIN_FPS} to {MAX_FPS}, not {args.fps}")
        folder = os.path.dirname(os.path.abspath(args.record))
        if not os.path.isdir(folder):
            raise ValueError(f"--record {args.record}: there is no folder {folder}")
    options = _parse_options(args.option)
    for spec in args.players:  # a bad spec or a game an agent cannot play: refused before the game
        make_agent(spec, game=args.game)
    match = Match(args.game, args.players, seed=args.seed, options=options)
    human_seats_ok(match)
    frames = []
    record = (lambda state: frames.append(state.render_rgb())) if args.record else None
    try:
        with remembered_stops():  # Ctrl-C while an agent's compiled search thinks is Ctrl-C too
            finished = play_in_terminal(match, show=args.show, on_action=record)
    except KeyboardInterrupt:
        print("\ninterrupted: game abandoned")
        return 130
    if not finished:
        print("you quit: game abandoned")
        return 0
    print(f"result: {match.result_text()} after {match.plies} plies")
    if args.record:
        _write_gif(frames, args.record, args.fps)
        print(f"replay written to {args.record} ({len(frames)} frames)")
    return 0


def _write_gif(frames, path: str, fps: float) -> None:
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError('recording a replay needs Pillow: pip install "plies[plot]"') from err
    from plies.files import atomic_write

    images = [Image.fromarray(frame) for frame in frames]
    atomic_write(path, lambda handle: images[0].save(
        handle, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0))


SLOW_SOLVE_STONES = 12
"""Below this many stones an exact solve can take long (the empty board: about 90 s on 2 cores):
``plies solve`` then solves column by column and shows progress."""


def cmd_serve(args: argparse.Namespace) -> int:
    from plies.web import serve

    agents: dict[str, str] = {}
    for item in args.agent:
        name, eq, target = item.partition("=")
        if not eq or not name.strip() or ":" not in target:
            raise ValueError(f"--agent takes NAME=module:attr, got {item!r}")
        agents[name.strip()] = target.strip()
    limits: dict[str, float] = {}
    for item in args.limit:
        key, eq, value = item.partition("=")
        try:
            limits[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--limit takes KEY=NUMBER (e.g. depth=4), got {item!r}") from None
        if not eq or not key.strip() or limits[key.strip()] < 0:
            raise ValueError(f"--limit takes KEY=NUMBER with a number >= 0, got {item!r}")
    if args.move_workers is not None:
        check_count("--move-workers", args.move_workers, 1)
    if args.move_seconds <= 0 or args.keep_finished <= 0 or args.keep_idle <= 0:
        raise ValueError("--move-seconds, --keep-finished and --keep-idle take numbers > 0")
    serve(args.host, args.port, args.results, agents, limits, games=args.games, move_workers=args.move_workers,
          move_seconds=args.move_seconds, keep_finished_days=args.keep_finished, keep_idle_days=args.keep_idle)
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    from plies.games.connect_four import get_solver
    from plies.games.connect_four.state import state_from_moves

    position = state_from_moves(args.moves)
    if position.is_terminal():
        raise ValueError(f"the game after {args.moves!r} is over: nothing to solve")
    solver = get_solver(position.width, position.height)
    if len(position.history) >= SLOW_SOLVE_STONES:
        result = solver.solve(position)
        score, best = result.score, result.best_moves
    else:
        from tqdm.auto import tqdm

        start = "the start position" if not position.history else f"{len(position.history)} stones"
        print(f"solving {start} exactly: early positions take up to a few minutes", file=sys.stderr)
        scores = {}
        for column in tqdm(position.legal_actions(), desc="columns", file=sys.stderr):
            child = position.clone()
            child.apply(column)
            if child.is_terminal():
                won = child.returns()[position.current_player] > 0
                scores[column] = (child.width * child.height + 2 - len(child.history)) // 2 if won else 0
            else:
                scores[column] = -solver.score(child)
        score = max(scores.values())
        best = [c + 1 for c, v in scores.items() if v == score]
    print(f"score {score}; best moves (1-based columns): {' '.join(str(m) for m in best)}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from plies.games.registry import game_ids

    if args.game not in game_ids():
        print(f"plies train: no game {args.game!r}; games: {', '.join(game_ids())}", file=sys.stderr)
        return 2
    from plies.training import engine

    return engine.main([args.game, *args.options])


def cmd_train_policy(args: argparse.Namespace) -> int:
    from plies.training import policy

    return policy.main([args.game, *args.options])


def cmd_games(args: argparse.Namespace) -> int:
    from plies.games.registry import entries

    for entry in entries():
        print(f"{entry.id:18s} plies.make({entry.id!r})  gymnasium.make({entry.gym_id!r})")
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    if args.game:
        _check_game(args.game)
    print(describe(args.game))
    return 0


def cmd_rate(args: argparse.Namespace) -> int:
    from plies.evaluation.rating import Ladder, build_ladder, ladder_path, place, plot_placement

    _check_game(args.game)
    if args.build:
        shipped = None if args.rungs else Ladder.load(args.game)
        rungs = args.rungs or shipped.specs()
        opening = args.opening_plies if args.opening_plies is not None else (shipped.opening_plies if shipped else 0)
        per_pair = args.games_per_pair or (shipped.games_per_pair if shipped else 40)
        ladder = build_ladder(args.game, rungs, per_pair, seed=args.seed, opening_plies=opening,
                              workers=args.workers, options=_parse_options(args.option), progress=not args.quiet)
        out = args.out or ladder_path(args.game)
        ladder.save(out)
        print(ladder.format())
        print(f"ladder written to {out}")
        if args.plot:
            plot_placement(ladder, None, args.plot)
            print(f"plot written to {args.plot}")
        return 0
    if not args.agent:
        raise ValueError("give the agent to rate: --agent SPEC (or --build to rebuild the ladder)")
    ladder = Ladder.load(args.ladder or args.game)
    if ladder.game != args.game:
        raise ValueError(f"{args.ladder} is a {ladder.game} ladder, not {args.game}")
    placement = place(ladder, args.agent, width=args.width, max_games=args.max_games, seed=args.seed,
                      workers=args.workers, progress=not args.quiet)
    print(placement.format(ladder))
    plot = args.plot or f"rating-{args.game}.png"
    plot_placement(ladder, placement, plot)
    print(f"plot written to {plot}")
    return 0


def _add_outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plot", metavar="PNG", help="write a heatmap of the win rates (extra 'plot')")
    parser.add_argument("--csv", metavar="FILE", help="write the table with intervals and ratings as CSV")
    parser.add_argument("--json", metavar="FILE", help="write the table and every game as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plies",
        description="Board and dice games as PettingZoo environments, search players and tournaments.",
        epilog="Agent specs are NAME or NAME:key=value,key=value, e.g. alphabeta:depth=6,eval=cells, "
        "or package.module:Name[:key=value,...] for your own agent class or factory; every spec takes "
        "name=... (to meet copies of an agent). "
        f"Agents: {', '.join(available_agents())}. Games: {', '.join(game_ids())}.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    t = sub.add_parser("tournament", help="play agents against each other and print a win-rate table",
                       description="Two-player games: every pair meets in --games games, seats swapped in "
                       "pairs that share a seed. More players: every rotation of each seating. Without "
                       f"--game and --agents it plays the default: {DEFAULT_TOURNAMENT}.")
    t.add_argument("--game", help=f"game id ({', '.join(game_ids())})")
    t.add_argument("--agents", nargs="+", metavar="SPEC", help="agent specs, e.g. random alphabeta:depth=4")
    t.add_argument("--games", type=int, help="games per pair of agents (two players) or in total (more players)")
    t.add_argument("--seed", type=int, default=None, help="seed of the whole tournament (default 0)")
    t.add_argument("--workers", type=int, default=None, help="worker processes (default: the number of cores)")
    t.add_argument("--results", help="SQLite file that stores every game as it finishes")
    t.add_argument("--resume", action="store_true",
                   help="continue the tournament stored in --results (the file holds its options: "
                   "`plies tournament --results FILE --resume` is enough; its agents must be shipped "
                   "ones with plain parameters, else give them with --agents)")
    t.add_argument("--opening-plies", type=int, default=None,
                   help="random plies at the start of each game pair, so deterministic agents meet varied positions")
    t.add_argument("--focus", help="N-player games: this agent plays every game, opponents drawn from the others")
    t.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="game option, e.g. --option num_players=4 (repeatable)")
    t.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="where games run: local worker processes, or a Ray cluster (extra 'ray'; RAY_ADDRESS, "
                   "else a local instance that ends with this process)")
    t.add_argument("--clock", metavar="START+INC",
                   help="time budget per agent and game, e.g. 10+0.25: 10 s, plus 0.25 s a decision; "
                   "over it, the game's rule applies (Dice Wars: the turn ends; others: forfeit)")
    t.add_argument("--schedule", choices=("rotations", "course"), default="rotations",
                   help="N-player games: 'course' picks groups as the Dice Wars course did (the agent with "
                   "fewest games, the one it met least, the rest at random; every rotation of one seating)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_outputs(t)
    t.set_defaults(func=cmd_tournament)

    r = sub.add_parser("report", help="re-print (and re-plot, re-export) a stored tournament")
    r.add_argument("results", help="the SQLite results file")
    _add_outputs(r)
    r.set_defaults(func=cmd_report)

    p = sub.add_parser("play", help="play one game (use the agent 'human' to play yourself)")
    p.add_argument("game", help=f"game id ({', '.join(game_ids())})")
    p.add_argument("--players", nargs="+", required=True, metavar="SPEC", help="one agent spec per seat")
    p.add_argument("--seed", type=int, default=0, help="seed for dice, set-up and tie-breaks")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option (repeatable)")
    p.add_argument("--show", action="store_true", help="print the board after every move (always on with a human)")
    p.add_argument("--record", metavar="GIF", help="write a replay of the game as an animated GIF")
    p.add_argument("--fps", type=float, default=2.0, help="frames per second of the replay (default 2)")
    p.set_defaults(func=cmd_play)

    sv = sub.add_parser("serve", help="play, watch and replay games in the browser (extra 'web')",
                        description="A web app: pick a game and seats (human or agent specs) and play by "
                        "clicking, watch agents play, replay the games of tournament results files.")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--results", nargs="*", default=[], metavar="SQLITE",
                    help="tournament results files whose games and tables to show")
    sv.add_argument("--agent", action="append", default=[], metavar="NAME=module:attr",
                    help="offer your own agent under NAME (requests never import code themselves)")
    sv.add_argument("--limit", action="append", default=[], metavar="KEY=N",
                    help="largest search parameter of agents built from requests (defaults: depth=6, "
                    "simulations=20000, max_attacks=8)")
    sv.add_argument("--games", type=Path, metavar="SQLITE",
                    help="file that keeps the games, so a restart loses none (default: games.sqlite in "
                    "the user's data folder, e.g. ~/.local/share/plies)")
    sv.add_argument("--move-workers", type=int, metavar="N",
                    help="processes that compute agents' moves, off the requests' path (default: one per core)")
    sv.add_argument("--move-seconds", type=float, default=60.0, metavar="S",
                    help="longest an agent may think about one move; beyond it the request fails, the game "
                    "unchanged (default 60)")
    sv.add_argument("--keep-finished", type=float, default=7.0, metavar="DAYS",
                    help="days a finished game is kept after it ended (default 7)")
    sv.add_argument("--keep-idle", type=float, default=30.0, metavar="DAYS",
                    help="days any game is kept after its last move (default 30)")
    sv.set_defaults(func=cmd_serve)

    s = sub.add_parser("solve", help="exact value of a Connect Four position")
    s.add_argument("moves", help="the moves so far as 1-based column digits, e.g. 4453; '' is the start "
                   f"position (fewer than {SLOW_SOLVE_STONES} stones: up to minutes, with progress)")
    s.set_defaults(func=cmd_solve)

    tr = sub.add_parser("train", help="train a value network by self-play (extra 'nn')",
                        description="one training engine (plies/training/engine.py) for every game, "
                        "with the recipe the game declares: backgammon, TD(lambda) self-play; dice_wars, "
                        "fitting on games of its network player; every game that declares net_value (a "
                        "user's too), self-play on the batched env. `plies train GAME --help` lists the options.")
    tr.add_argument("game", help="the game whose network to train (plies games lists them)")
    tr.add_argument("options", nargs=argparse.REMAINDER, help="the game's training options (see GAME --help)")
    tr.set_defaults(func=cmd_train)

    tp = sub.add_parser("train-policy", help="distil a game's value network into a policy network for "
                        "MCTS's priors (extra 'nn')",
                        description="a policy network learns the priors PUCT takes from the value network "
                        "(plies/training/policy.py). `plies train-policy GAME --help` lists the options.")
    tp.add_argument("game", help="the game (two players, no chance, a value network)")
    tp.add_argument("options", nargs=argparse.REMAINDER, help="its options (see GAME --help)")
    tp.set_defaults(func=cmd_train_policy)

    ra = sub.add_parser("rate", help="place an agent on the game's rating ladder (extra 'eval')",
                        description="Plays the agent against the ladder's rungs nearest its estimate until "
                        "its 95%% interval is within +-WIDTH points or --max-games are played; prints the "
                        "rating (Elo scale, random = 0) and writes a plot. --build replays the ladder's "
                        "round-robin and refits it (the command is stored in the ladder file).")
    ra.add_argument("--game", required=True, help=f"game id ({', '.join(game_ids())})")
    ra.add_argument("--agent", metavar="SPEC", help="the agent to rate")
    ra.add_argument("--width", type=float, default=50.0, help="stop at a 95%% interval of +-WIDTH points (50)")
    ra.add_argument("--max-games", type=int, default=400, help="game budget of the placement (400)")
    ra.add_argument("--ladder", metavar="FILE", help="a ladder file instead of the shipped one")
    ra.add_argument("--plot", metavar="PNG", help="where to write the plot (default rating-GAME.png)")
    ra.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    ra.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ra.add_argument("--build", action="store_true", help="rebuild the ladder by a round-robin of its rungs")
    ra.add_argument("--rungs", nargs="+", metavar="SPEC", help="--build: the rungs (default: the shipped ones)")
    ra.add_argument("--games-per-pair", type=int, default=None,
                    help="--build: games per pair of rungs (default: the shipped ladder's, else 40)")
    ra.add_argument("--opening-plies", type=int, default=None,
                    help="--build: random opening plies (default: the shipped ladder's, else 0)")
    ra.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="--build: game option")
    ra.add_argument("--out", metavar="FILE", help="--build: where to write the ladder (default: the shipped file)")
    ra.add_argument("--quiet", action="store_true", help="no progress bar")
    ra.set_defaults(func=cmd_rate)

    sub.add_parser("games", help="list the games and their ids").set_defaults(func=cmd_games)
    ag = sub.add_parser("agents", help="list the agents: what each does, its games and its parameters")
    ag.add_argument("--game", help="only the agents that can play this game")
    ag.set_defaults(func=cmd_agents)
    return parser


KEEPS_WORK = ("tournament", "train", "train-policy", "rate")
"""Commands whose work is kept in files as it goes and whose worker processes must be ended."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from plies.evaluation.interrupts import exit_status, remembered_stops, sigterm_as_interrupt

    # SIGTERM stops the commands that keep work as Ctrl-C does: their message, their workers ended;
    # in every command a stop whose exception compiled code lost is raised again
    stoppable = sigterm_as_interrupt() if args.command in KEEPS_WORK else contextlib.nullcontext()
    try:
        with stoppable, remembered_stops():
            return args.func(args)
    except (ValueError, OSError, ImportError) as err:
        print(f"plies {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # commands that keep work say where it is themselves; the rest stop plainly
        print(f"\nplies {args.command}: interrupted", file=sys.stderr)
        return exit_status(stop)


if __name__ == "__main__":
    sys.exit(main())
