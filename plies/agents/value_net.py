"""Value networks (torch) that replace the heuristic inside the searches, and their Evaluator.

- ``DiceWarsNet``: a small network over the map. Per-area features (dice, neighbourhood,
  threat, region membership, the owner's place in the turn order) and per-seat features (areas,
  dice, largest region, reserve); ``layers`` rounds of message passing along the adjacency
  (separate weights for friendly and enemy neighbours; ``layers=0`` is the pooled MLP), then
  the areas are pooled per owner and one shared head scores every seat: a softmax over the seats
  alive gives each seat's probability of winning.
- ``BackgammonNet``: TD-Gammon's network: 198 inputs (four units per point and side, bar,
  borne off, side on roll), one hidden layer of sigmoids, outputs P(win), P(gammon win),
  P(gammon loss) of the side that rolls next.
- ``NetEvaluator(model)``: the ``Evaluator`` for any of them (CPU or CUDA): a batch of states is
  encoded in compiled code by the game's own encoder (``Game.encode``, in the game's
  ``features.py``) and scored by ONE forward pass.
- ``net_evaluator(game, path)``: the shipped weights (``plies/agents/weights/<game>_net.pt``)
  or a checkpoint, for the ``eval=net`` of search specs (``expectiminimax:depth=2,eval=net``).

torch is the ``nn`` extra; everything here that needs it says so when it is missing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from plies.agents.evaluators import BatchEvaluator, check_seat_count
from plies.files import DamagedFileError, load_torch
from plies.games.backgammon import features as bg_features
from plies.games.backgammon import rules as bg_rules
from plies.games.dice_wars import features as dw_features
from plies.games.kernels import action_index
from plies.games.registry import get_game
from plies.games.value_kernels import check_flat_params

WEIGHTS_DIR = Path(__file__).parent / "weights"
NN_HINT = 'value networks need torch: pip install "plies[nn]"'


def require_torch():
    """Imports torch, or raises an ImportError naming the extra to install."""
    try:
        import torch
    except ImportError as err:
        raise ImportError(NN_HINT) from err
    return torch


def shipped_weights(game: str, name: str = "net") -> Path:
    """The shipped network ``name`` of ``game``: ``net`` is the game's current one, other names
    are earlier networks kept so that their figures stay reproducible (``<game>_net_<name>.pt``)."""
    return WEIGHTS_DIR / (f"{game}_net.pt" if name == "net" else f"{game}_net_{name}.pt")


def shipped_names(game: str) -> list[str]:
    """The names of the networks shipped for ``game`` (``eval=NAME`` in search specs)."""
    names = ["net"] if shipped_weights(game).exists() else []
    prefix = f"{game}_net_"
    names += sorted(p.stem[len(prefix):] for p in WEIGHTS_DIR.glob(f"{prefix}*.pt"))
    return names


# ----- networks ----------------------------------------------------------------------------------
class _LazyModule:
    """Builds the torch classes on first use, so importing this module needs no torch."""

    _classes: dict[str, type] = {}

    @classmethod
    def get(cls, name: str) -> type:
        if not cls._classes:
            cls._classes.update(_build_classes())
        return cls._classes[name]


def _build_classes() -> dict[str, type]:
    torch = require_torch()
    nn = torch.nn

    class DiceWarsNet(nn.Module):
        """Win probability of every seat of a Dice Wars position (see the module docstring)."""

        game = "dice_wars"
        arch = "dice_wars_net"

        def __init__(self, hidden: int = 32, layers: int = 2) -> None:
            super().__init__()
            self.config = {"hidden": hidden, "layers": layers}
            self.embed = nn.Linear(dw_features.AREA_FEATURES, hidden)
            self.own = nn.ModuleList(nn.Linear(hidden, hidden, bias=False) for _ in range(layers))
            self.enemy = nn.ModuleList(nn.Linear(hidden, hidden, bias=False) for _ in range(layers))
            self.update = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))
            self.head = nn.Sequential(
                nn.Linear(2 * hidden + dw_features.PLAYER_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, 1)
            )

        def forward(self, area, player, alive, owner, adj_own, adj_enemy):
            h = torch.relu(self.embed(area))
            for own, enemy, update in zip(self.own, self.enemy, self.update):
                message = own(torch.bmm(adj_own, h)) + enemy(torch.bmm(adj_enemy, h))
                h = h + torch.relu(update(h) + message)
            counts = owner.sum(1).clamp(min=1.0).unsqueeze(-1)  # B x seats x 1
            pooled = torch.bmm(owner.transpose(1, 2), h)  # B x seats x hidden
            n_areas = area.shape[1]
            x = torch.cat([pooled / n_areas, pooled / counts, player], -1)
            logits = self.head(x).squeeze(-1)
            logits = logits.masked_fill(alive <= 0, -1e9)
            return torch.log_softmax(logits, -1)  # log P(seat wins), B x 8

        def flat_params(self) -> np.ndarray:
            """The weights laid out for the compiled ``gnn_value`` (the game's
            ``features.gnn_param_count`` says how)."""
            parts = [np.array([self.config["hidden"], self.config["layers"]], np.float64),
                     _rows_per_input(self.embed)]
            for own, enemy, update in zip(self.own, self.enemy, self.update):
                parts += [_rows_per_input(own), _rows_per_input(enemy), _rows_per_input(update)]
            parts += [_rows_per_input(self.head[0]), _rows_per_input(self.head[2])]
            return np.ascontiguousarray(np.concatenate(parts))

        def tensors(self, states: np.ndarray, device) -> tuple:
            feats = dw_features.encode(states)
            dtype = self.embed.weight.dtype  # float64 for a ``.double()`` copy
            return tuple(torch.from_numpy(feats[k]).to(device, dtype) for k in
                         ("area", "player", "alive", "owner", "adj_own", "adj_enemy"))

        def seat_values(self, states: np.ndarray, num_players: int, device) -> np.ndarray:
            """Values (2 P(win) - 1) of every seat, B x num_players, one forward pass; pending
            battles are scored as the expectation over their two outcomes."""
            states = np.ascontiguousarray(states, np.int64)
            rows = np.empty((2 * len(states), states.shape[1]), np.int64)
            weights = np.empty(2 * len(states), np.float64)
            parent = np.empty(2 * len(states), np.int64)
            k = dw_features.resolve_battles(states, rows, weights, parent)
            with torch.no_grad():
                logp = self(*self.tensors(rows[:k], device))
            p = logp.exp().cpu().numpy().astype(np.float64)[:, :num_players]
            if k != len(states):  # battles were split in two rows: weight them back together
                starts = np.flatnonzero(np.r_[True, parent[1:k] != parent[: k - 1]])
                p = np.add.reduceat(p * weights[:k, None], starts, axis=0)
            return np.clip(2.0 * p - 1.0, -0.999999, 0.999999)

    class BackgammonNet(nn.Module):
        """TD-Gammon's network: 198 inputs, ``hidden`` sigmoid units, three sigmoid outputs
        P(win), P(win a gammon), P(lose a gammon) for the side that moves next."""

        game = "backgammon"
        arch = "backgammon_td"

        def __init__(self, hidden: int = 80) -> None:
            super().__init__()
            self.config = {"hidden": hidden}
            self.hidden = nn.Linear(bg_features.TD_GAMMON_INPUTS, hidden)
            self.out = nn.Linear(hidden, 3)

        def forward(self, x):
            return torch.sigmoid(self.out(torch.sigmoid(self.hidden(x))))

        def tensors(self, states: np.ndarray, device, mover=None) -> tuple:
            x = bg_features.td_gammon_encode(states, mover)
            return (torch.from_numpy(x).to(device, self.hidden.weight.dtype),)

        @staticmethod
        def equity(p, scoring: int):
            """Expected points for the side to move: 2 P(win) - 1, plus gammons when they count."""
            value = 2.0 * p[..., 0] - 1.0
            if scoring:
                value = value + p[..., 1] - p[..., 2]
            return value

        def seat_values(self, states: np.ndarray, num_players: int, device) -> np.ndarray:
            states = np.ascontiguousarray(states, np.int64)
            mover = bg_features.next_mover(states)
            with torch.no_grad():
                p = self(*self.tensors(states, device, mover)).cpu().numpy().astype(np.float64)
            scoring = states[:, bg_rules.SCORING]
            eq = 2.0 * p[:, 0] - 1.0 + scoring * (p[:, 1] - p[:, 2])
            # values in (-1, 1): with gammons, expected points / 3
            eq = np.where(scoring > 0, eq / 3.0, eq)
            eq = np.clip(eq, -0.999999, 0.999999)
            out = np.empty((len(states), 2))
            rows = np.arange(len(states))
            out[rows, mover] = eq
            out[rows, 1 - mover] = -eq
            return out

    class ContactRaceNet(nn.Module):
        """Two backgammon networks chosen by the position: one for contact, one for the race.
        Inputs are ``plies.games.backgammon.features``'s; each network has ``hidden`` sigmoid
        units and five sigmoid outputs for the side that moves next: P(win), P(win a gammon),
        P(win a backgammon), P(lose a gammon), P(lose a backgammon). With ``hidden2`` > 0 a
        second layer of that many ReLU units reads the sigmoid units and adds its own term to
        the outputs' logits (beside the first layer's, which the outputs keep reading); its
        output weights start at zero, so a network grown from a one-layer one (``widen_into``)
        computes what that one did until training moves them. With ``classes=3`` a third
        network takes crashed positions (``features.CRASHED``); with two, the contact network
        does."""

        game = "backgammon"
        arch = "backgammon_contact_race"

        def __init__(self, hidden: int = 128, inputs: int = bg_features.BASE_INPUTS, hidden2: int = 0,
                     classes: int = 2) -> None:
            super().__init__()
            if inputs not in bg_features.INPUT_WIDTHS:
                raise ValueError(f"a contact/race network reads {', '.join(map(str, bg_features.INPUT_WIDTHS))} "
                                 f"inputs, not {inputs!r}")
            if type(hidden2) is not int or not 0 <= hidden2 <= bg_features.MAX_WIDTH:
                raise ValueError(f"a contact/race network's second layer has 0 to {bg_features.MAX_WIDTH} "
                                 f"units, not {hidden2!r}")
            if type(classes) is not int or classes not in bg_features.NETWORK_CLASSES:
                raise ValueError(f"a contact/race network has {' or '.join(map(str, bg_features.NETWORK_CLASSES))} "
                                 f"classes, not {classes!r}")
            # networks from before the contact inputs say only their hidden units; one-layer
            # networks leave hidden2 out
            self.config = {"hidden": hidden} if inputs == bg_features.BASE_INPUTS else {"hidden": hidden, "inputs": inputs}
            if hidden2:
                self.config["hidden2"] = hidden2
            if classes != 2:  # two-class networks, all those before the crashed class, leave it out
                self.config["classes"] = classes
            self.inputs = inputs
            self.hidden2 = hidden2
            self.nets = nn.ModuleList(
                nn.Sequential(nn.Linear(inputs, hidden), nn.Sigmoid(), nn.Linear(hidden, 5))
                for _ in range(classes))
            if hidden2:
                self.second = nn.ModuleList(
                    nn.Sequential(nn.Linear(hidden, hidden2), nn.ReLU(), nn.Linear(hidden2, 5, bias=False))
                    for _ in range(classes))
                with torch.no_grad():
                    for layer in self.second:
                        layer[2].weight.zero_()

        def class_logits(self, k: int, x):
            """Pre-sigmoid outputs of class ``k``'s network for its rows' inputs ``x``."""
            net = self.nets[k]
            h = net[1](net[0](x))
            out = net[2](h)
            return out + self.second[k](h) if self.hidden2 else out

        def logits(self, x, classes):
            """Pre-sigmoid outputs, each row through its class's network (which reads the first
            ``inputs`` columns of the encoder's; ``classes`` are the encoder's)."""
            x = x[:, :self.inputs]
            if len(self.nets) <= bg_features.CRASHED:
                classes = torch.where(classes == bg_features.CRASHED, bg_features.CONTACT, classes)
            out = x.new_empty((x.shape[0], 5))
            for k in range(len(self.nets)):
                rows = (classes == k).nonzero(as_tuple=True)[0]
                if len(rows):
                    out[rows] = self.class_logits(k, x[rows])
            return out

        def forward(self, x, classes):
            return torch.sigmoid(self.logits(x, classes))

        def flat_params(self) -> np.ndarray:
            """The weights laid out for the compiled ``contact_race_value`` (the game's
            ``features.contact_race_param_count`` says how)."""
            parts = [np.array([self.config["hidden"], self.inputs, self.hidden2, len(self.nets)], np.float64)]
            for k, net in enumerate(self.nets):
                layers = [net[0], net[2]] + ([self.second[k][0], self.second[k][2]] if self.hidden2 else [])
                parts += [_rows_per_input(layer) for layer in layers]
            return np.ascontiguousarray(np.concatenate(parts))

        def tensors(self, states: np.ndarray, device, mover=None) -> tuple:
            x, classes = bg_features.encode(states, mover)
            dtype = self.nets[0][0].weight.dtype  # float64 for a ``.double()`` copy
            return torch.from_numpy(x).to(device, dtype), torch.from_numpy(classes).to(device)

        def seat_values(self, states: np.ndarray, num_players: int, device) -> np.ndarray:
            states = np.ascontiguousarray(states, np.int64)
            mover = bg_features.next_mover(states)
            with torch.no_grad():
                p = self(*self.tensors(states, device, mover)).cpu().numpy().astype(np.float64)
            eq = contact_race_equity(p, states[:, bg_rules.SCORING])
            out = np.empty((len(states), 2))
            rows = np.arange(len(states))
            out[rows, mover] = eq
            out[rows, 1 - mover] = -eq
            return out

    class MLPValueNet(nn.Module):
        """A multilayer perceptron over a game's declared inputs (``Game.encode``): ReLU hidden
        layers, one tanh output, the value for the side to move of a two-player zero-sum game.
        ``flat_params()`` lays its weights out for the compiled ``Game.net_value`` kernel, which
        the searches call leaf by leaf (``plies.games.value_kernels``)."""

        arch = "mlp_value"

        def __init__(self, game: str, inputs: int, hidden: list[int] | tuple[int, ...] = (128,)) -> None:
            super().__init__()
            sizes_ok = all(isinstance(n, int) and 1 <= n <= 4096 for n in [inputs, *hidden])
            if not isinstance(game, str) or not sizes_ok or len(hidden) > 8:
                raise ValueError("an mlp_value network has a game id, 1 to 4096 inputs and at most "
                                 f"8 hidden layers of 1 to 4096 units; got {game!r}, {inputs!r}, {hidden!r}")
            self.game = game
            self.config = {"game": game, "inputs": int(inputs), "hidden": [int(h) for h in hidden]}
            sizes = [int(inputs), *self.config["hidden"], 1]
            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

        def forward(self, x):
            for layer in self.layers[:-1]:
                x = torch.relu(layer(x))
            return torch.tanh(self.layers[-1](x)).squeeze(-1)

        def flat_params(self) -> np.ndarray:
            sizes = [self.config["inputs"], *self.config["hidden"], 1]
            parts = [np.array([len(self.layers), *sizes], np.float64)]
            parts += [_rows_per_input(layer) for layer in self.layers]
            return np.ascontiguousarray(np.concatenate(parts))

        def seat_values(self, states: np.ndarray, num_players: int, device) -> np.ndarray:
            from plies.games.registry import get_game

            states = np.ascontiguousarray(states, np.int64)
            x = get_game(self.game).encode(states)
            with torch.no_grad():
                v = self(torch.from_numpy(x).to(device)).cpu().numpy().astype(np.float64)
            mover = np.where(states[:, 0] == 1, 1, 0)
            out = np.empty((len(states), 2))
            rows = np.arange(len(states))
            out[rows, mover] = v
            out[rows, 1 - mover] = -v
            return out

    class MLPPolicyNet(nn.Module):
        """A policy network over a game's declared inputs: ReLU hidden layers and one logit per
        action of the game (``actions``), for the side to move; the searches take the softmax
        over the legal actions' logits as MCTS's priors (``mcts:policy=``). ``flat_params()``
        has ``MLPValueNet``'s layout with ``actions`` outputs (``value_kernels.mlp_forward``)."""

        arch = "mlp_policy"

        def __init__(self, game: str, inputs: int, actions: int, hidden: list[int] | tuple[int, ...] = (128,)) -> None:
            super().__init__()
            sizes_ok = all(isinstance(n, int) and 1 <= n <= 4096 for n in [inputs, actions, *hidden])
            if not isinstance(game, str) or not sizes_ok or len(hidden) > 8:
                raise ValueError("an mlp_policy network has a game id, 1 to 4096 inputs and actions and at most "
                                 f"8 hidden layers of 1 to 4096 units; got {game!r}, {inputs!r}, {actions!r}, "
                                 f"{hidden!r}")
            self.game = game
            self.config = {"game": game, "inputs": int(inputs), "actions": int(actions),
                           "hidden": [int(h) for h in hidden]}
            sizes = [int(inputs), *self.config["hidden"], int(actions)]
            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

        def forward(self, x):
            for layer in self.layers[:-1]:
                x = torch.relu(layer(x))
            return self.layers[-1](x)

        def flat_params(self) -> np.ndarray:
            sizes = [self.config["inputs"], *self.config["hidden"], self.config["actions"]]
            parts = [np.array([len(self.layers), *sizes], np.float64)]
            parts += [_rows_per_input(layer) for layer in self.layers]
            return np.ascontiguousarray(np.concatenate(parts))

    return {"DiceWarsNet": DiceWarsNet, "BackgammonNet": BackgammonNet, "ContactRaceNet": ContactRaceNet,
            "MLPValueNet": MLPValueNet, "MLPPolicyNet": MLPPolicyNet}


def _rows_per_input(layer) -> np.ndarray:
    """A torch ``Linear``'s weights (one row per input: torch's transposed) then its biases, flat
    float64, as ``plies.games.value_kernels.affine`` reads them (a layer without biases gets
    zeros)."""
    weights = layer.weight.detach().cpu().double().numpy().T.ravel()
    bias = (layer.bias.detach().cpu().double().numpy().ravel() if layer.bias is not None
            else np.zeros(layer.weight.shape[0]))
    return np.concatenate([weights, bias])


def contact_race_equity(p: np.ndarray, scoring: np.ndarray | int) -> np.ndarray:
    """Values in (-1, 1) from five outputs [win, win gammon, win backgammon, lose gammon, lose
    backgammon]: 2 P(win) - 1 when every win scores 1, else the expected points / 3. The outputs
    are made consistent first (a backgammon is a gammon is a win)."""
    win = np.clip(p[..., 0], 0.0, 1.0)
    wg = np.minimum(p[..., 1], win)
    wbg = np.minimum(p[..., 2], wg)
    lg = np.minimum(p[..., 3], 1.0 - win)
    lbg = np.minimum(p[..., 4], lg)
    single = 2.0 * win - 1.0
    money = (single + wg - lg + wbg - lbg) / 3.0
    eq = np.where(np.asarray(scoring) > 0, money, single)
    return np.clip(eq, -0.999999, 0.999999)


def DiceWarsNet(**config: Any):  # noqa: N802 - a factory named like the class it builds
    """The Dice Wars network (``hidden``, ``layers``: 0 = pooled MLP, no message passing)."""
    return _LazyModule.get("DiceWarsNet")(**config)


def BackgammonNet(**config: Any):  # noqa: N802
    """TD-Gammon's network (``hidden`` units)."""
    return _LazyModule.get("BackgammonNet")(**config)


def ContactRaceNet(**config: Any):  # noqa: N802
    """The backgammon contact and race networks, and with ``classes=3`` a crashed one (``hidden``
    units each over ``inputs`` inputs, and ``hidden2`` units of a second layer if set)."""
    return _LazyModule.get("ContactRaceNet")(**config)


def MLPValueNet(**config: Any):  # noqa: N802
    """A value network over any game's declared inputs (``game``, ``inputs``, ``hidden``)."""
    return _LazyModule.get("MLPValueNet")(**config)


def MLPPolicyNet(**config: Any):  # noqa: N802
    """A policy network over any game's declared inputs (``game``, ``inputs``, ``actions``, ``hidden``)."""
    return _LazyModule.get("MLPPolicyNet")(**config)


ARCHITECTURES = {"dice_wars_net": ("dice_wars", DiceWarsNet),
                 "backgammon_td": ("backgammon", BackgammonNet),
                 "backgammon_contact_race": ("backgammon", ContactRaceNet),
                 "mlp_value": ("", MLPValueNet),
                 "mlp_policy": ("", MLPPolicyNet)}
"""Architecture name -> (its game, or "" for any game with ``Game.net_value``; its factory)."""


def build(arch: str, config: dict[str, Any]):
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown network architecture {arch!r}; known: {', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[arch][1](**config)


# ----- saving and loading --------------------------------------------------------------------------
def model_payload(model) -> dict[str, Any]:
    """What identifies a network: game, architecture, its config and weights."""
    return {"game": model.game, "arch": model.arch, "arch_config": dict(model.config),
            "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()}}


def check_payload(payload: dict[str, Any], game: str | None, arch: str | None, path: Any) -> None:
    """Raises a ValueError saying what does not match (another game's or architecture's file)."""
    if not isinstance(payload, dict) or "arch" not in payload or "game" not in payload:
        raise ValueError(f"{path} is not a plies value-network file or checkpoint")
    if game is not None and payload["game"] != game:
        raise ValueError(f"{path} holds a {payload['game']} network, not one for {game}")
    if arch is not None and payload["arch"] != arch:
        raise ValueError(f"{path} holds a {payload['arch']!r} network, not {arch!r}")


def load_value_net(path: str | Path, game: str | None = None, config: dict | None = None,
                   device: str = "cpu"):
    """A network from shipped weights or a training checkpoint; ``game`` (and ``config``, the
    architecture's settings) must match what the file holds."""
    require_torch()
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no network weights at {path}")
    payload = load_torch(path, ("weights", "checkpoint"))
    check_payload(payload, game, None, path)
    if config is not None and dict(config) != payload["arch_config"]:
        raise ValueError(f"{path} holds a network with {payload['arch_config']}, not {config}")
    try:
        model = build(payload["arch"], payload["arch_config"])
        model.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise DamagedFileError(f"{path} does not hold a usable network ({err})") from None
    model.eval()
    return model.to(device)


# ----- the Evaluator -----------------------------------------------------------------------
class NetEvaluator(BatchEvaluator):
    """A torch value network as an ``Evaluator``: every call encodes the batch and runs ONE
    forward pass (``calls`` counts them), on ``device`` ("cpu", "cuda", ...)."""

    def __init__(self, model, device: str | None = None, name: str = "net") -> None:
        torch = require_torch()
        current = next(model.parameters()).device
        self.device = torch.device(device) if device else current
        if self.device != current:  # Module.to moves in place: leave the caller's model where it is
            model = copy.deepcopy(model).to(self.device)
        self.model = model.eval()
        self.name = name
        self.calls = 0

    def evaluate_all(self, states: np.ndarray, root: int, num_players: int,
                     zero_sum: bool) -> np.ndarray:
        check_seat_count(num_players, root)  # the rows: every model's encoder checks them itself
        self.calls += 1
        return self.model.seat_values(states, num_players, self.device)

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        states = get_game(self.model.game).checked_rows(states)
        # slot 1 of a Dice Wars state is its number of players; backgammon has two
        n = int(states[:, 1].max()) if self.model.game == "dice_wars" and len(states) else 2
        seat = action_index(seat, "seat")
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of these {n}-player positions (seats 0 to {n - 1})")
        return self.evaluate_all(states, seat, n, True)[:, seat]

    def __repr__(self) -> str:
        return f"NetEvaluator({self.model.arch}, device={self.device})"


_CACHE: dict[tuple[str, str], Any] = {}


def cached_network(game: str, path: str | Path | None = None, name: str = "net"):
    """``game``'s shipped network ``name`` or the network file ``path``, loaded once per
    process (the one loader behind ``net_evaluator`` and ``compiled_net_params``)."""
    file = Path(path) if path else shipped_weights(game, name)
    key = (game, str(file))
    if key not in _CACHE:
        if not file.exists() and path is None:
            raise FileNotFoundError(
                f"no shipped {game} network ({file}); train one with `plies train {game}`")
        _CACHE[key] = load_value_net(file, game)
    return _CACHE[key]


def net_evaluator(game: str, path: str | Path | None = None, threads: int | None = 1,
                  name: str = "net") -> NetEvaluator:
    """The evaluator behind ``eval=net`` (the shipped weights of ``game``), ``eval=NAME`` (an
    earlier shipped network) or ``eval=<file>.pt``; networks are loaded once per process.
    ``threads`` caps torch's CPU threads (search processes run side by side; small nets gain
    nothing from more)."""
    torch = require_torch()
    if threads:
        torch.set_num_threads(threads)
    return NetEvaluator(cached_network(game, path, name))


_PARAMS: dict[int, np.ndarray] = {}


def kernel_params(model, check: Callable[[np.ndarray], None]) -> np.ndarray:
    """``model.flat_params()``, the network's weights for a compiled kernel, laid out and
    passed through ``check`` (which raises a ValueError) once per process."""
    if id(model) not in _PARAMS:
        params = model.flat_params()
        check(params)
        _PARAMS[id(model)] = params
    return _PARAMS[id(model)]


def compiled_net_params(game: str, path: str | Path | None = None, name: str = "net") -> np.ndarray:
    """The flat parameters (``plies.games.value_kernels``) of ``game``'s shipped network
    ``name`` or of the network file ``path``, for its compiled ``Game.net_value`` kernel. The
    file must hold an ``mlp_value`` network."""
    model = cached_network(game, path, name)
    if model.arch != "mlp_value":
        raise ValueError(f"{path or name} holds a {model.arch!r} network; {game}'s compiled "
                         "searches take an 'mlp_value' network (plies train)")
    where = f"the {game} network {path or name!r}"
    return kernel_params(model, lambda params: check_flat_params(params, model.config["inputs"], where))


def shipped_policy(game: str) -> Path:
    """The shipped policy network of ``game`` (``mcts:policy=net``)."""
    return WEIGHTS_DIR / f"{game}_policy.pt"


def compiled_policy_params(game: str, name: str, inputs: int, actions: int) -> np.ndarray:
    """The flat parameters of ``game``'s shipped policy network (``name`` "net") or of the
    policy file ``name`` (``*.pt``), checked for ``inputs`` inputs and ``actions`` outputs (the
    compiled search reads them without bounds checks)."""
    if name == "net":
        path = shipped_policy(game)
        if not path.exists():
            raise FileNotFoundError(f"no shipped {game} policy network ({path}); make one with "
                                    f"`plies train-policy {game}`")
    elif name.endswith(".pt"):
        path = Path(name)
    else:
        raise ValueError(f"policy= takes 'net' (the game's shipped policy network) or a FILE.pt, not {name!r}")
    model = cached_network(game, path)
    if model.arch != "mlp_policy":
        raise ValueError(f"{name} holds a {model.arch!r} network; policy= takes an 'mlp_policy' network "
                         "(plies train-policy)")
    where = f"the {game} policy network {name!r}"
    params = kernel_params(model, lambda params: None)
    check_flat_params(params, inputs, where, outputs=actions)  # at every call: another board, other sizes
    return params


def is_net_spec(name: str) -> bool:
    return name == "net" or name.endswith(".pt")
