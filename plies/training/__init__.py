"""Training value networks by self-play (the ``nn`` extra): ``plies train GAME``.

- ``engine``: the trainer of every two-player game without chance that declares
  ``Game.net_value`` (self-play on the batched env, TD(lambda), rounds over processes);
- ``selfplay``: games of any agents on the tournament engine's backends, replayable records;
- ``records``: game records stored in chunks;
- ``common``: atomic checkpoints with exact resume, metrics CSV, learning curves;
- ``backgammon``: the contact/race networks' self-play (TD(lambda) or search labels);
- ``dice_wars``: the map network fitted in rounds on games of the pool and its own player (``dw_data``).

A game the engine does not train names its own trainer in its declaration (``Game.trainer``).
"""
