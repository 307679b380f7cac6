"""What every training run shares: checkpoints, metrics, learning curves, evaluation games.

Checkpoints hold the network (game, architecture, its config, weights), the optimiser's state,
the run's config, its counters and every random generator's state, and are written atomically
(a temporary file renamed into place), so an interrupted run loses at most the work since the
last checkpoint and ``--resume`` continues exactly as if it had not stopped.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from plies.agents.value_net import check_payload, model_payload, require_torch
from plies.files import DamagedFileError, atomic_write, load_torch, save_torch


def atomic_save(obj: dict[str, Any], path: str | Path, kind: str = "checkpoint") -> None:
    """Save tensors and plain data atomically, with a checksum (``plies.files.save_torch``)."""
    require_torch()
    save_torch(obj, path, kind)


def rng_states(rng: np.random.Generator) -> dict[str, Any]:
    torch = require_torch()
    return {"numpy": rng.bit_generator.state, "python": random.getstate(),
            "torch": torch.get_rng_state()}


def restore_rng_states(states: dict[str, Any], rng: np.random.Generator) -> None:
    torch = require_torch()
    rng.bit_generator.state = states["numpy"]
    random.setstate(states["python"])
    torch.set_rng_state(states["torch"])


def save_checkpoint(path: str | Path, model, optimizer, config: dict[str, Any],
                    progress: dict[str, Any], rng: np.random.Generator) -> None:
    payload = model_payload(model)
    payload.update({
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "config": dict(config),
        "progress": dict(progress),
        "rng": rng_states(rng),
    })
    atomic_save(payload, path)


def load_checkpoint(path: str | Path, game: str, arch: str,
                    arch_config: dict[str, Any] | None = None) -> dict[str, Any]:
    """A checkpoint of this game and architecture (ValueError naming the mismatch otherwise)."""
    require_torch()
    payload = load_torch(path, "checkpoint")
    check_payload(payload, game, arch, path)
    missing = [k for k in ("state_dict", "optimizer", "config", "progress", "rng") if k not in payload]
    if missing:
        raise DamagedFileError(f"damaged checkpoint {path}: no {', '.join(missing)}")
    if arch_config is not None and payload["arch_config"] != dict(arch_config):
        raise ValueError(
            f"{path} holds a {arch} network with {payload['arch_config']}, but this run asks for "
            f"{dict(arch_config)}: resume with the same settings, or start a new run folder")
    return payload


def resume_from(payload: dict[str, Any], path: str | Path, model, optimizer, rng: np.random.Generator,
                template: dict[str, Any], step_field: str) -> dict[str, Any]:
    """Put a checkpoint's weights, optimizer and generators into a run, and return its progress
    checked against ``template`` (a fresh run's): each of its counters a number >= 0 of the same
    kind, the step counter present (others missing get the template's value). A checkpoint whose
    parts do not fit is a DamagedFileError, raised before the run touches any of its files."""
    progress = payload["progress"]
    if not isinstance(progress, dict) or step_field not in progress:
        raise DamagedFileError(f"damaged checkpoint {path}: its progress has no {step_field!r} counter")
    progress = {**template, **progress}
    for key, fresh in template.items():
        value = progress[key]
        if isinstance(fresh, (int, float)) and not isinstance(fresh, bool):
            kinds = (int,) if isinstance(fresh, int) else (int, float)
            if not isinstance(value, kinds) or isinstance(value, bool) or not np.isfinite(value) or value < 0:
                raise DamagedFileError(f"damaged checkpoint {path}: its progress {key!r} is {value!r}, "
                                       f"not a {'whole ' if kinds == (int,) else ''}number >= 0")
        elif isinstance(fresh, dict) and not isinstance(value, dict):
            raise DamagedFileError(f"damaged checkpoint {path}: its progress {key!r} is not a table")
    try:
        model.load_state_dict(payload["state_dict"])
        if optimizer is not None:
            optimizer.load_state_dict(payload["optimizer"])
        restore_rng_states(payload["rng"], rng)
    except (RuntimeError, KeyError, TypeError, ValueError, AttributeError) as err:
        raise DamagedFileError(f"damaged checkpoint {path}: {type(err).__name__}: {str(err)[:300]}") from err
    if not all(bool(t.isfinite().all()) for t in model.state_dict().values() if t.is_floating_point()):
        raise DamagedFileError(f"damaged checkpoint {path}: its weights are not all finite")
    return progress


def save_weights(model, path: str | Path, card: dict[str, Any]) -> None:
    """Shipped weights (network only, a few hundred KB) and their card ``<path>.json``."""
    path = Path(path)
    payload = model_payload(model)
    payload["card"] = card
    atomic_save(payload, path, "weights")
    atomic_write(path.with_suffix(".json"), lambda f: f.write(json.dumps(card, indent=2) + "\n"), text=True)


class MetricsLog:
    """A CSV file of metrics rows; on resume the rows after the checkpoint's step are dropped,
    so the file reads as one uninterrupted run."""

    def __init__(self, path: str | Path, fields: list[str], resume_step: int | None = None,
                 step_field: str = "step") -> None:
        self.path = Path(path)
        self.fields = fields
        rows: list[dict[str, str]] = []
        if resume_step is not None and self.path.exists():
            with open(self.path, newline="") as f:
                for line, r in enumerate(csv.DictReader(f), start=2):
                    try:
                        step = int(float(r[step_field]))
                    except (KeyError, TypeError, ValueError):
                        raise DamagedFileError(f"damaged metrics file {self.path}: line {line} has no "
                                               f"number in its {step_field!r} column") from None
                    if step <= resume_step:
                        rows.append(r)
        self.path.parent.mkdir(parents=True, exist_ok=True)

        def write(f) -> None:  # whole or not at all: a stop here must not lose the kept rows
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            for r in rows:
                writer.writerow({k: r.get(k, "") for k in fields})

        atomic_write(self.path, write, text=True)

    def add(self, **row: Any) -> None:
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, fieldnames=self.fields).writerow(
                {k: row.get(k, "") for k in self.fields})

    def rows(self) -> list[dict[str, str]]:
        with open(self.path, newline="") as f:
            return list(csv.DictReader(f))


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a rate (draws may count as half wins)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def plot_curve(metrics: str | Path, png: str | Path, x: str, series: dict[str, str],
               title: str, interval: tuple[str, str] | None = None, ylabel: str = "") -> bool:
    """A learning curve from the metrics CSV (rows where the series is empty are skipped);
    returns False (and draws nothing) when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    with open(metrics, newline="") as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for column, label in series.items():
        pts = [(float(r[x]), float(r[column])) for r in rows if r.get(column) not in ("", None)]
        if not pts:
            continue
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="o", ms=3, label=label)
        if interval and column == list(series)[0]:
            lo = [float(r[interval[0]]) for r in rows if r.get(column) not in ("", None)]
            hi = [float(r[interval[1]]) for r in rows if r.get(column) not in ("", None)]
            ax.fill_between(xs, lo, hi, alpha=0.2, label="95% interval")
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    atomic_write(Path(png), lambda handle: fig.savefig(handle, dpi=110, format="png"))
    plt.close(fig)
    return True


def staged_commands(config: dict[str, Any], command: Any) -> str:
    """The commands that reproduce a run whose step size changed on resume: ``command(games,
    lr)`` for each stage (the config's ``first_lr`` and ``lr_changes``), ``--resume`` after the
    first, joined with ``&&``."""
    changes = config.get("lr_changes", [])
    first_lr = config.get("first_lr", config["lr"]) if changes else config["lr"]
    ends = [games for games, _ in changes] + [config["games"]]
    lrs = [first_lr] + [lr for _, lr in changes]
    return " && ".join(command(games, lr) + (" --resume" if k else "")
                       for k, (games, lr) in enumerate(zip(ends, lrs)))


def seed_everything(seed: int) -> np.random.Generator:
    torch = require_torch()
    random.seed(seed)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def _start_worker(parent: int) -> None:
    from plies.evaluation.tournament import exit_with_parent

    exit_with_parent(parent)


class RoundRunner:
    """Plays a round's jobs (one per worker) with ``work``: in this process, in a pool of spawned
    processes that end with this one, or on Ray (``backend="ray"``: a cluster named by
    ``RAY_ADDRESS``, else a local one). ``work`` is a module-level function of its job alone, and
    each job carries its own seed, so every backend gives the same round, in the jobs' order."""

    def __init__(self, work: Callable[[tuple], Any], backend: str, workers: int) -> None:
        if backend not in ("process", "ray"):
            raise ValueError(f"backend must be 'process' or 'ray', not {backend!r}")
        self.work = work
        self.pool = self.ray = None
        if backend == "ray":
            from plies.evaluation.ray_watchdog import start_ray

            self.ray = start_ray(workers)
            self.remote = self.ray.remote(work)
        elif workers > 1:
            context = multiprocessing.get_context("spawn")
            from plies.evaluation.interrupts import sigint_ignored

            with sigint_ignored():  # inherited: the workers ignore it from their first instruction
                self.pool = context.Pool(workers, initializer=_start_worker, initargs=(os.getpid(),))

    def __call__(self, jobs: list[tuple]) -> list[Any]:
        if self.ray is not None:
            return self.ray.get([self.remote.remote(job) for job in jobs])
        if self.pool is not None:
            return self.pool.map(self.work, jobs)
        return [self.work(job) for job in jobs]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
