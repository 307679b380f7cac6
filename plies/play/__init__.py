"""Games between people and agents: a ``Match`` (``match``) and the terminal front end
(``terminal``). The web app (``plies.web``) is built on the same ``Match``."""
