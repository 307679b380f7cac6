"""The games themselves: the contract every game fills in, and one folder per game.

``kernels`` (kernel signatures and constants) <- ``game`` (the ``Game`` declaration) <-
``state`` (the ``GameState`` base class) <- ``registry`` (game id -> ``Game``); beside them
``batching`` (the compiled batch stepper), ``options`` and ``drawing``. Each game folder holds
its numba ``rules.py``, its ``state.py`` ending in ``GAME = Game(...)``, its ``drawing.py`` and
any data. Nothing here imports agents, environments or anything above them.
"""
