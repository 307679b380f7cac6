"""``plies serve`` driven in a real browser: Debian's headless Chromium through its chromedriver
(selenium with explicit paths, so nothing downloads a browser). Skipped where no chromium is
installed; .ci/run installs it. Screenshots of each game's page go to docs/images/web_*.png and
the timings measured here are printed (they are reported in docs/benchmarks.md, never asserted)."""

from __future__ import annotations

import io
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from plies.agents.specs import make as make_agent  # noqa: E402
from plies.games.backgammon.drawing import moves_from  # noqa: E402
from plies.web.app import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="no chromium/chromedriver here (apt-get install chromium chromium-driver)"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    from plies.evaluation import run_tournament

    path = tmp_path_factory.mktemp("results") / "ttt.sqlite"
    run_tournament("tictactoe", ["random", "perfect"], 2, seed=0, workers=1, results=path, progress=False)
    return path


@pytest.fixture(scope="module")
def server(results_file):
    app = create_app([results_file])
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,800",
                 "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def start_game(browser, url: str, game: str, seats: list[str], seed: int, speed: str = "0") -> str:
    """Start a game from the home page's form; returns the game id."""
    browser.get(url + "/")
    browser.execute_script("localStorage.setItem('plies-speed', arguments[0])", speed)
    browser.execute_script("document.getElementById('game').value = arguments[0];"
                           "document.getElementById('game').onchange()", game)
    if game == "dice_wars":
        inputs = browser.find_elements(By.CSS_SELECTOR, "#seats input")
        while len(inputs) > len(seats):  # the form offers four seats; keep the ones asked for
            browser.execute_script("arguments[0].parentNode.remove()", inputs[-1])
            inputs = inputs[:-1]
    for seat, spec in enumerate(seats):
        field = browser.find_element(By.ID, f"seat{seat}")
        field.clear()
        field.send_keys(spec)
    browser.find_element(By.ID, "seed").send_keys(str(seed))
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "play"))
    return browser.find_element(By.ID, "play").get_attribute("data-id")


def wait_state(browser, *states: str, timeout: float = 120) -> str:
    WebDriverWait(browser, timeout).until(
        lambda d: d.execute_script("return document.getElementById('play').dataset.state") in states)
    return browser.execute_script("return document.getElementById('play').dataset.state")


def wait_version(browser, version: int, timeout: float = 60) -> None:
    WebDriverWait(browser, timeout).until(
        lambda d: int(d.execute_script("return document.getElementById('play').dataset.version")) > version)


def version(browser) -> int:
    return int(browser.execute_script("return document.getElementById('play').dataset.version"))


def click_part(browser, selector: str) -> int:
    """Click a part of the board like a person (at its place on the screen); the version before."""
    before = version(browser)
    element = browser.find_element(By.CSS_SELECTOR, selector)
    ActionChains(browser).move_to_element(element).click().perform()
    return before


def screenshot(browser, name: str) -> np.ndarray:
    from PIL import Image

    png = browser.get_screenshot_as_png()  # the whole page: the board, the log and the buttons
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    IMAGES.mkdir(parents=True, exist_ok=True)
    (IMAGES / f"web_{name}.png").write_bytes(png)
    return image


def assert_drawn(image: np.ndarray) -> None:
    assert image.shape[0] > 150 and image.shape[1] > 150
    assert image.reshape(-1, 3).astype(float).std(axis=0).max() > 25  # not blank
    assert len(np.unique(image.reshape(-1, 3)[::7], axis=0)) > 8


def page_load_ms(browser) -> float:
    return browser.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime;")


def log_lines(browser) -> list[str]:
    return browser.execute_script("return [...document.querySelectorAll('#log li')].map(li => li.textContent)")


def text_of(browser, element_id: str) -> str:
    return browser.execute_script("return document.getElementById(arguments[0]).textContent", element_id)


def test_connect_four_won_against_random_by_clicks(server, browser):
    app, url = server
    game_id = start_game(browser, url, "connect_four", ["human", "random"], seed=5)
    print(f"\nconnect_four page load: {page_load_ms(browser):.0f} ms")
    match = app.state.games.get(game_id).match
    helper = make_agent("alphabeta:depth=6", seed=0)
    first = True
    while wait_state(browser, "human", "over") == "human":
        column = helper.act(match.state.clone())
        before = click_part(browser, f'[data-col="{column}"]')
        wait_version(browser, before)
        if first:
            assert_drawn(screenshot(browser, "connect_four"))
            first = False
    assert match.state.is_terminal() and match.state.winner == 0
    status = text_of(browser, "status")
    assert status == "Game over: X (you) won"
    assert any(line.startswith("O (random) played") for line in log_lines(browser))


def test_connect_four_move_timing_against_alphabeta(server, browser):
    app, url = server
    start_game(browser, url, "connect_four", ["human", "alphabeta:depth=4"], seed=1)
    for column in (3, 3, 2):
        wait_state(browser, "human")
        before = click_part(browser, f'[data-col="{column}"]')
        wait_version(browser, before)
    wait_state(browser, "human", "over")
    steps = browser.execute_script(
        "return window.pliesTimings.filter(t => t.url.endsWith('/step')).map(t => t.ms)")
    assert len(steps) >= 3
    print(f"\nconnect_four alphabeta:depth=4 move served in {np.median(steps):.0f} ms median, "
          f"{max(steps):.0f} ms max over {len(steps)} moves (browser round trip)")


def test_backgammon_turn_with_undo(server, browser):
    app, url = server
    game_id = start_game(browser, url, "backgammon", ["human", "random"], seed=2)
    print(f"\nbackgammon page load: {page_load_ms(browser):.0f} ms")
    wait_state(browser, "human")
    match = app.state.games.get(game_id).match
    start_ply = match.plies

    def one_move() -> None:
        legal = [int(a) for a in match.state.legal_actions()]
        source = legal[0] // 6 + 1
        target = next(iter(moves_from(legal, source)))
        click_part(browser, f'[data-point="{source}"]')
        WebDriverWait(browser, 30).until(lambda d: "where to" in text_of(d, "status"))
        before = click_part(browser, f'[data-point="{target}"]')
        wait_version(browser, before)

    one_move()
    assert match.plies == start_ply + 1
    assert log_lines(browser)[-1].startswith("X (you) played")
    assert_drawn(screenshot(browser, "backgammon"))
    undo = browser.find_element(By.ID, "undo")
    assert undo.is_displayed()
    before = version(browser)
    undo.click()
    wait_version(browser, before)
    assert match.plies == start_ply and not log_lines(browser)[-1:] == ["X (you) played"]
    while wait_state(browser, "human", "confirm") == "human":
        one_move()
    assert browser.find_element(By.ID, "confirm").is_displayed()
    played = match.plies - start_ply
    assert played >= 1
    before = version(browser)
    browser.find_element(By.ID, "confirm").click()
    wait_version(browser, before)
    assert match.log[start_ply + played].seat is None  # the opponent's roll came after the turn


def test_dice_wars_attack_and_end_turn(server, browser):
    app, url = server
    game_id = start_game(browser, url, "dice_wars", ["human", "strength_diff"], seed=4)
    print(f"\ndice_wars page load: {page_load_ms(browser):.0f} ms")
    wait_state(browser, "human")
    match = app.state.games.get(game_id).match
    state = match.state
    n = state.num_areas
    attack = next(int(a) for a in state.legal_actions() if a < n * n)
    source, target = divmod(attack, n)
    click_part(browser, f'[data-dice-of="{source}"]')
    WebDriverWait(browser, 30).until(lambda d: "where to" in text_of(d, "status"))
    before = click_part(browser, f'[data-dice-of="{target}"]')
    wait_version(browser, before)
    lines = log_lines(browser)
    assert f"seat 0 (you) played {source}->{target}" in lines
    assert lines[-1] in ("chance: won", "chance: lost")  # the battle is rolled at once
    assert browser.find_elements(By.CSS_SELECTOR, ".last-battle")
    assert_drawn(screenshot(browser, "dice_wars"))
    end = browser.find_element(By.ID, "end-turn")
    assert end.is_displayed()
    before = version(browser)
    end.click()
    wait_version(browser, before)
    assert any(line == "seat 0 (you) played end" for line in log_lines(browser))
    WebDriverWait(browser, 60).until(lambda d: any(line.startswith("seat 1 (strength_diff) played")
                                                   for line in log_lines(d)))


@pytest.mark.parametrize("game,seats", [("nine_mens_morris", ["human", "random"]),
                                        ("tictactoe", ["random", "perfect"])])
def test_pages_draw_other_games(server, browser, game, seats):
    app, url = server
    start_game(browser, url, game, seats, seed=0, speed="0")
    print(f"\n{game} page load: {page_load_ms(browser):.0f} ms")
    wait_state(browser, "human", "over")
    assert_drawn(screenshot(browser, game))


def test_replay_stepped_through(server, browser, results_file):
    app, url = server
    browser.get(url + "/results/0")
    assert "Score of the row agent" in browser.page_source
    assert browser.find_elements(By.CSS_SELECTOR, ".heatmap td")
    browser.find_element(By.LINK_TEXT, "game 0").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "replay").get_attribute("data-ply") == "0")
    plies = int(browser.find_element(By.ID, "replay").get_attribute("data-plies"))
    empty = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    for ply in range(1, plies + 1):
        browser.find_element(By.ID, "forward").click()
        WebDriverWait(browser, 30).until(
            lambda d, p=ply: d.find_element(By.ID, "replay").get_attribute("data-ply") == str(p))
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != empty
    assert "wins" in text_of(browser, "status") or "draw" in text_of(browser, "status")
    browser.find_element(By.ID, "first").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "replay").get_attribute("data-ply") == "0")
    assert_drawn(screenshot_replay(browser))


def screenshot_replay(browser) -> np.ndarray:
    from PIL import Image

    png = browser.find_element(By.ID, "board").screenshot_as_png
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_othello_played_to_the_end_by_clicks(server, browser):
    app, url = server
    game_id = start_game(browser, url, "othello", ["human", "random"], seed=4)
    match = app.state.games.get(game_id).match
    helper = make_agent("alphabeta:depth=2", seed=0)
    moves = 0
    while wait_state(browser, "human", "over") == "human":
        square = helper.act(match.state.clone())  # 64 (pass) is the bar under the board
        before = click_part(browser, f'[data-cell="{square}"]')
        wait_version(browser, before)
        moves += 1
        if moves == 6:
            assert_drawn(screenshot(browser, "othello"))
    assert match.state.is_terminal() and moves >= 20
    assert text_of(browser, "status").startswith("Game over: ")
    assert any(line.startswith("white (random) played") for line in log_lines(browser))
