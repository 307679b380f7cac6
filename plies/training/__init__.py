"""Training value networks by self-play (the ``nn`` extra): ``plies train GAME``.

- ``engine``: the trainer of every two-player game without chance that declares
  ``Game.net_value`` (compiled self-play, TD(lambda), rounds over processes);
- ``selfplay``: games of any agents on the tournament engine's backends, replayable records;
- ``records``: game records stored in chunks;
- ``common``: atomic checkpoints with exact resume, metrics CSV, learning curves;
- ``backgammon``: TD(lambda) self-play of TD-Gammon's network;
- ``dice_wars``: supervised fitting of the map network on self-play games (``dw_data``).
"""

TRAINERS: dict[str, str] = {
    "backgammon": "plies.training.backgammon:main",
    "dice_wars": "plies.training.dice_wars:main",
}
"""Game id -> the entry point of its own value-network trainer (``plies train GAME``); every
other game goes to ``engine``."""
