"""A small load on a real ``plies serve`` (a subprocess on loopback), killed and restarted in the
middle: no answer 5xx, every bad request refused with its 4xx, no game lost, no command run.
The large load and its timings are a benchmark (benchmarks/web_load.py, docs/benchmarks.md)."""

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from benchmarks.web_load import BAD_KINDS, run_load  # noqa: E402


@pytest.mark.slow
def test_a_small_load_with_a_crash_in_the_middle(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a command run by a request would leave its file
    figures = run_load(clients=4, games=24, searches=1, actions_per_game=10, seed=3, restart=True,
                       workers=2, folder=tmp_path, probe_seconds=2)
    assert figures["server_errors"] == [] and not any(code >= 500 for code in figures["statuses"])
    assert set(figures["refused"]) == set(BAD_KINDS) and figures["wrong_refusals"] == []
    assert figures["games_created"] == 24 and figures["lost"] == {}
    assert not figures["pwned"] and not (tmp_path / "PWNED").exists()
    assert (tmp_path / "games.sqlite").exists()
