"""A person's games in a real browser: Chromium clicks through a whole game of each game from the start page to
the end, checks the table and the result against the server's game, hands a shared screen over, steps
through replays (from a finished game and from a file). The screenshots in docs/images/web-*.png are
taken here."""

from __future__ import annotations

import random
import re

from conftest import ROOT, address
from playwright.sync_api import Page, expect

from sobek_env.registry import load_game
from sobek_env.replay import Replay

IMAGES = ROOT / "docs" / "images"
# what the clicking person prefers (building and ending steps), so that a game of Kleopatra ends in fewer clicks
EAGER = ("quarry", "wall:", "gate:", "sphinx", "obelisk", "pedestal", "throne", "mosaic", "tile:", "orient:",
         "square:", "card:", "merchant", "done", "yes", "set:", "take:")
MAX_CLICKS = 3000


def start(page: Page, server, game: str, players: int, agents: list[str], seed: int, screen: str = "shared") -> None:
    page.goto(address(server) + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    page.wait_for_selector(f"#agent-{players - 1}", timeout=120_000)  # the first list reads the models
    expect(page.locator(".seat-row")).to_have_count(players)
    for seat, spec in enumerate(agents):
        name, _, option = spec.partition(":")
        page.select_option(f"#agent-{seat}", name)
        if option:
            page.fill(f"#option-{seat}", option.partition("=")[2])
    page.fill("#seed", str(seed))
    page.select_option("#screen", screen)
    page.click("#play")


def game_of(server, page: Page):
    game_id = page.locator("#game-page").get_attribute("data-game")
    return server.app_state.store.sessions[game_id]


def click_to_the_end(page: Page, seed: int, shot: str | None = None, shot_at: int = 0) -> tuple[int, int]:
    """Click the person's choices (at random, mostly building and ending ones) until the end, half of those the
    table offers (a Nile card, a stall, a garden square) on the table itself; the clicks, and those on the table."""
    rng = random.Random(seed)
    clicks = on_table = 0
    while clicks < MAX_CLICKS:
        page.wait_for_selector(".choices button.action, .result", timeout=60_000)
        if page.locator(".result").count():
            return clicks, on_table
        if page.locator("#handover:not([hidden])").count():
            page.click("#handover-ready")
            continue
        buttons = page.locator(".choices button.action")
        names = buttons.evaluate_all("all => all.map(b => b.dataset.name)")
        eager = [i for i, name in enumerate(names) if name.startswith(EAGER)]
        choice = rng.choice(eager if eager and rng.random() < 0.9 else range(len(names)))
        step = page.locator(".game").get_attribute("data-step")
        action = buttons.nth(choice).get_attribute("data-action")
        spot = page.locator(f'#table .pick[data-action="{action}"]')
        if spot.count() and rng.random() < 0.5:
            spot.click()
            on_table += 1
        else:
            buttons.nth(choice).click()
        page.wait_for_function(f"() => document.querySelector('.game') && "
                               f"document.querySelector('.game').dataset.step !== '{step}'", timeout=60_000)
        clicks += 1
        if shot and clicks == shot_at:
            page.screenshot(path=str(IMAGES / shot), full_page=True)
    raise AssertionError(f"the game did not end in {MAX_CLICKS} clicks")


def check_the_end(page: Page, session) -> None:
    state = session.state
    assert state.is_over
    scores = page.locator(".result ol.scores li").all_inner_texts()
    assert len(scores) == state.num_players
    shown = {int(re.search(r"player_(\d)", line).group(1)): int(re.search(r"\s(\d+)", line).group(1))
             for line in scores}
    assert shown == dict(enumerate(state.scores))
    for winner in state.winners:
        assert any(f"player_{winner}" in line and "winner" in line for line in scores)
    expect(page.locator(".status .over")).to_contain_text("Game over")


def test_a_whole_game_of_sobek_by_clicking(page: Page, server) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    start(page, server, "sobek", 3, ["human", "heuristic", "ismcts:simulations=50"], seed=21)
    page.wait_for_selector(".choices")
    expect(page.locator(".nile-panel")).to_contain_text("The Nile")
    expect(page.locator(".panel.seat")).to_have_count(3)
    expect(page.locator(".choices button.action").first).to_contain_text(re.compile(r"(take|play|lay) "))
    session = game_of(server, page)
    # the table shows the seat's own hand and only the backs of the others'
    hand = page.locator('.panel.seat[data-seat="0"]').inner_text()
    assert "hand (" in hand and "player_0 (you)" in hand
    assert "green" in page.locator('.panel.seat[data-seat="1"]').inner_text()
    clicks, on_table = click_to_the_end(page, 21, shot="web-sobek.png", shot_at=12)
    assert clicks > 10 and on_table > 0
    check_the_end(page, session)
    result = page.locator(".result").inner_text()
    assert "most corrupt" in result
    # a finished game opens as a replay, stepped forwards and backwards, seen from any seat or all
    page.click("#open-replay")
    page.wait_for_selector(".replay")
    expect(page.locator(".replay .move")).to_contain_text("the deal")
    page.click("#r-next")
    expect(page.locator(".replay")).to_have_attribute("data-step", "1")
    first = page.locator(".replay .move").inner_text()
    page.click("#r-next")
    page.click("#r-prev")
    expect(page.locator(".replay .move")).to_have_text(first)
    backs = page.locator('.panel.seat[data-seat="1"] [title$="-backed"]')
    assert backs.count() > 0  # seen from seat 0: seat 1's hand by its backs
    page.select_option("#r-seat", "full")
    expect(page.locator(".replay")).to_have_attribute("data-seat", "full")
    expect(backs).to_have_count(0)  # the full view: every hand open
    page.click("#r-last")
    expect(page.locator(".replay .result")).to_contain_text("winner")


def test_a_whole_game_of_kleopatra_by_clicking(page: Page, server) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    start(page, server, "kleopatra", 3, ["human", "heuristic", "greedy"], seed=4)
    page.wait_for_selector(".choices")
    expect(page.locator(".palace-panel svg.palace")).to_be_visible()
    expect(page.locator(".market .stall")).to_have_count(4)
    session = game_of(server, page)
    others = page.locator('.panel.seat[data-seat="1"]').inner_text()
    assert "talents ?" in others and "face down" in others  # hidden in the original mode
    clicks, on_table = click_to_the_end(page, 4, shot="web-kleopatra.png", shot_at=30)
    assert clicks > 20 and on_table > 0
    check_the_end(page, session)
    assert "eaten by the crocodile" in page.locator(".result").inner_text()
    download = page.locator("#download-replay")
    with page.expect_download() as info:
        download.click()
    replay = Replay.load(info.value.path())
    assert list(replay.final_state().scores) == list(session.state.scores)


def test_people_sharing_a_screen_hand_it_over(page: Page, server) -> None:
    seed = next(s for s in range(50) if load_game("sobek").new(2, s).current_player == 0)
    start(page, server, "sobek", 2, ["human", "human"], seed=seed)
    page.wait_for_selector(".choices")
    expect(page.locator(".status")).to_contain_text("player_0 (you)")
    names = page.locator(".choices button.action").evaluate_all("all => all.map(b => b.dataset.name)")
    page.locator(".choices button.action").nth(names.index(next(n for n in names if n.startswith("take:")))).click()
    expect(page.locator("#handover")).to_be_visible()
    expect(page.locator("#handover-title")).to_have_text("Pass the screen to player_1")
    expect(page.locator("#table")).to_be_hidden()
    page.click("#handover-ready")
    expect(page.locator(".status")).to_contain_text("player_1 (you)")
    expect(page.locator(".moves-panel")).to_contain_text("player_0 takes")  # what the other did, step by step
    page.locator(".moves-panel button.look").first.click()
    expect(page.locator(".moves-panel")).to_contain_text("looking back")
    page.click("#step-now")
    expect(page.locator(".choices")).to_be_visible()


def test_each_person_may_have_a_link_of_his_own(page: Page, server) -> None:
    start(page, server, "kleopatra", 3, ["human", "random", "human"], seed=2, screen="links")
    expect(page.locator("#link-list li")).to_have_count(2)
    link = page.locator("#link-list a").nth(1).get_attribute("href")
    assert "seat=2" in link
    page.goto(link)
    expect(page.locator(".status")).to_contain_text("player_2 (you)")
    page.goto(link.replace("token=", "token=x"))
    expect(page.locator(".error")).to_contain_text("token")


def test_a_replay_file_opens_from_the_start_page(page: Page, server, tmp_path) -> None:
    state = load_game("sobek").new(2, 17)
    replay = Replay("sobek", 2, 17, {}, "original", ["random", "random"])
    rng = random.Random(17)
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        replay.actions.append((state.current_player, action))
        state.apply(action)
    path = tmp_path / "game.jsonl"
    path.write_text(replay.dumps(state))
    page.goto(address(server) + "/")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector(".replay")
    page.wait_for_load_state("load")  # its script listens for the keys: a key pressed before it loads is lost
    expect(page.locator(".replay")).to_have_attribute("data-steps", str(len(replay.actions)))
    page.keyboard.press("ArrowRight")
    expect(page.locator(".replay")).to_have_attribute("data-step", "1")
    page.fill("#r-step", str(len(replay.actions)))
    page.dispatch_event("#r-step", "change")
    expect(page.locator(".replay .result")).to_contain_text("winner")
    page.screenshot(path=str(IMAGES / "web-replay.png"), full_page=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(replay.dumps(state).splitlines()[0] + "\n")
    page.goto(address(server) + "/")
    page.set_input_files("#replay-file", str(bad))
    expect(page.locator("#replay-error")).to_contain_text("cannot open the replay")
