"""A real browser (Debian's headless Chromium, driven by Playwright) plays through the pages (issues 15, 26):
a complete David & Goliath game by clicking cards, a Koehandel game through at least one auction and one
cow trade, a Rattus game on the map and a complete Rattus Cartus game by clicking, and a game that goes
on from the same page after the server was killed. Screenshots go to docs/img/. Skipped only where
Chromium or Playwright is missing."""

import os
import random
import shutil
import signal
from pathlib import Path

import httpx
import pytest

CHROMIUM = os.environ.get("HIDDENHAND_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
pytestmark = pytest.mark.skipif(not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)")


@pytest.fixture
def page():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(20_000)
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        browser.close()
        assert errors == [], f"the page's script failed: {errors}"


def start_game(page, base, game, seats, seed):
    page.goto(base + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(len(seats)))
    for index, seat in enumerate(seats):
        page.select_option(f"#seat-{index}", "custom" if ":" in seat else seat)
        if ":" in seat:  # a search agent with options, typed in
            page.fill(f"#spec-{index}", seat)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#link-0")
    tokens = {int(link.get_attribute("id")[5:]): link.get_attribute("href").rsplit("/", 1)[1]
              for link in page.locator("a[id^=link-]").all()}
    page.click("#link-0")
    page.wait_for_selector("#status")
    return tokens


def test_david_goliath_in_the_browser(page, live_server):
    base = live_server(agent_delay=0.02)
    start_game(page, base, "david_goliath", ["human", "heuristic", "ismcts:iterations=5"], seed=7)
    clicks = 0
    while True:
        page.wait_for_selector("#hand button.card:enabled, [data-status=finished]")
        if page.locator("[data-status=finished]").count():
            break
        if clicks == 20:  # mid-round: cards on the table and in the taken piles
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "web_david_goliath.png"), full_page=True)
        step = page.get_attribute("#status", "data-step")
        page.locator("#hand button.card:enabled").first.click()
        page.wait_for_function(f"document.querySelector('#status').dataset.step !== '{step}'")
        clicks += 1
    assert clicks == 3 * 15  # three rounds of fifteen tricks (DG-4)
    assert "player_2 (ismcts:iterations=5)" in page.inner_text("table")
    assert "Game over" in page.inner_text("#status") and "Winner" in page.inner_text("#status")
    page.click("#replay-link")
    page.wait_for_selector("#replay-controls")
    page.click("#next")
    page.wait_for_function("document.querySelector('#replay-controls h2').textContent.includes('step 1 of')")
    page.check("#spectator")
    page.wait_for_function("document.querySelectorAll('th').length && [...document.querySelectorAll('th')]"
                           ".some((th) => th.textContent === 'hand')")


KOEHANDEL_PREFERENCES = ("lay it face down", "pay these cards", "auction the top card", "pass", "accept the offer",
                         "never", "sell to", "take the pot", "end the turn", "keep it", "bid")


def preferred(labels, trade=True):
    """A move that keeps the game going: a cow trade when there is one, else auctions, passes, acceptances."""
    if trade:
        for label in labels:
            if label == "cow trade" or label.startswith("trade with"):
                return label
    return next((label for want in KOEHANDEL_PREFERENCES for label in labels if label.startswith(want)), labels[0])


def test_koehandel_auction_and_cow_trade_in_the_browser(page, live_server):
    """player_0 plays in the browser, player_1 (a second human) through the API, player_2 is the heuristic.
    A cow trade between the two humans waits for player_1, so the face-down offer can be looked at."""
    base = live_server(agent_delay=0.02)
    tokens = start_game(page, base, "koehandel", ["human", "human", "heuristic"], seed=11)
    other = httpx.Client(base_url=base, timeout=30)
    seen = {"auction": False, "trade": False, "face_down": False, "bid_panel": False}

    def look():
        events = page.inner_text("#events") if page.locator("#events").count() else ""
        seen["auction"] |= "auctioned by" in events
        seen["trade"] |= "cow trade" in events

    for _ in range(2000):
        look()
        if all(seen.values()) or page.locator("[data-status=finished]").count():
            break
        frame = other.get(f"/api/seat/{tokens[1]}").json()
        if frame["your_turn"]:
            trade = frame["view"]["trade"]
            if trade and trade["offer_face_down"] and not seen["face_down"]:  # laid by player_0, face down
                page.wait_for_selector("#offer-facedown")
                assert "face down" in page.inner_text("#offer-facedown")
                assert "yours" in page.inner_text("#trade")  # the challenger sees its own money
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "web_koehandel.png"), full_page=True)
                seen["face_down"] = True
            move = {a["label"]: a["id"] for a in frame["legal"]}
            other.post(f"/api/seat/{tokens[1]}/move", json={"action": move[preferred(list(move), trade=False)]})
            continue
        if page.locator("#actions button").count():
            labels = page.locator("#actions button").all_inner_texts()
            bids = [label for label in labels if label.startswith("bid ")]
            if bids:  # issue 26: the bid panel agrees with the auction ("Your raise so far: +120", high bid 0)
                seen["bid_panel"] = True
                assert f"Your bid so far: {bids[0][4:]} " in page.inner_text("#bid-state"), page.inner_text("#money")
            step = page.get_attribute("#status", "data-step")
            raises = [label for label in labels if label.startswith("raise by")]
            choice = raises[0] if raises and not seen["bid_panel"] else preferred(labels)
            page.locator("#actions button", has_text=choice).first.click()
            page.wait_for_function(f"document.querySelector('#status').dataset.step !== '{step}'")
        else:
            page.wait_for_timeout(30)
    assert seen == {"auction": True, "trade": True, "face_down": True, "bid_panel": True}


def step_of(page):
    return page.get_attribute("#status", "data-step")


def click_and_wait(page, locator):
    """Click and wait until the game moved on (the status's step changes)."""
    step = step_of(page)
    locator.click()
    page.wait_for_function(f"document.querySelector('#status').dataset.step !== '{step}'")


def your_turn(page):
    """Wait until this seat may move (True) or the game is over (False)."""
    page.wait_for_selector(".banner.mine, [data-status=finished]")
    return not page.locator("[data-status=finished]").count()


def test_rattus_by_clicking_the_map(page, live_server):
    """Issue 26 item 1: a Rattus game against the heuristic played by clicking regions, tokens, cards and the
    abilities' guided sequences (source, target, count); every click is a legal move."""
    base = live_server(agent_delay=0.02)
    start_game(page, base, "rattus", ["human", "heuristic"], seed=3)
    rng, moves, guided, shot = random.Random(3), 0, set(), False
    assert your_turn(page)  # the opening placement by keyboard: Tab reaches a region, Enter places there
    step = step_of(page)
    page.focus("#map .region.target")
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('#status').dataset.step !== '{step}'")
    while moves < 400 and your_turn(page):
        step = step_of(page)
        guides = page.locator("#moves [data-guide]")
        if page.locator("#cards button[data-action]").count() and not guides.count() and rng.random() < 0.5:
            click_and_wait(page, page.locator("#cards button[data-action]").nth(rng.randrange(
                page.locator("#cards button[data-action]").count())))
        elif guides.count() and rng.random() < 0.6:  # use an ability: pick, pick, (count)
            kind = guides.nth(rng.randrange(guides.count())).get_attribute("data-guide")
            page.click(f"#moves [data-guide={kind}]")
            for _ in range(4):
                prompt = page.inner_text("#prompt")  # every step says what it asks for
                assert prompt and not prompt.startswith("choose below")
                if not shot and kind in ("merchant", "monk"):
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / "web_rattus.png"), full_page=True)
                    shot = True
                targets = page.locator("#map .target, #moves button[data-action]")
                targets.nth(rng.randrange(targets.count())).click()
                page.wait_for_function("([step, prompt]) => document.querySelector('#status').dataset.step !== step"
                                       " || (document.querySelector('#prompt') || {}).textContent !== prompt", arg=[step, prompt])
                if step_of(page) != step:
                    break
            guided.add(kind)
            guided.add(kind)
        elif page.locator("#map .region.target").count():
            targets = page.locator("#map .region.target")
            target = targets.nth(rng.randrange(targets.count()))
            target.click()
            if page.locator("#moves button[data-action]").count() and step_of(page) == step:  # Peasant or not
                page.locator("#moves button[data-action]").first.click()
            page.wait_for_function(f"document.querySelector('#status').dataset.step !== '{step}'")
        elif page.locator("#map .token.target").count():
            click_and_wait(page, page.locator("#map .token.target").first)
        else:
            buttons = page.locator("#moves button[data-action]")
            click_and_wait(page, buttons.nth(rng.randrange(buttons.count())))
        moves += 1
    assert page.locator("[data-status=finished]").count() or moves >= 60, moves
    assert moves >= 20 and guided, (moves, guided)
    assert "places" in page.inner_text("#log") and "MERCHANT" not in page.content()
    page.click("#howto summary")
    assert "Goal" in page.inner_text("#howto") and page.get_attribute("#howto a", "href") == "/docs/rattus_rules.md"


def test_rattus_cartus_by_answering_its_questions(page, live_server):
    """Issue 26 item 2: a complete Rattus Cartus game against two heuristics, answered by clicking building
    cards, nun cards, hand cards and the question's buttons."""
    base = live_server(agent_delay=0.02)
    start_game(page, base, "rattus_cartus", ["human", "heuristic", "heuristic"], seed=5)
    rng, moves, questions, shot = random.Random(5), 0, set(), False
    while moves < 600 and your_turn(page):
        question = page.inner_text("#question h2")
        questions.add(question)
        if not shot and question == "Add cards of which class?" and page.locator("#row .rc-back").count():
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "web_rattus_cartus.png"), full_page=True)
            shot = True
        table = page.locator(".building.target, .nun.target, #hand button[data-action]")
        done = page.locator("#choices button", has_text="done adding")
        if done.count() and (rng.random() < 0.35 or not table.count()):
            click_and_wait(page, done)
        elif table.count() and rng.random() < 0.7:
            click_and_wait(page, table.nth(rng.randrange(table.count())))
        else:
            buttons = page.locator("#choices button")
            click_and_wait(page, buttons.nth(rng.randrange(buttons.count())))
        moves += 1
    assert page.locator("[data-status=finished]").count(), moves
    assert moves >= 30 and {"Which building do you enter?", "Add cards of which class?"} <= questions, (moves, questions)
    assert "The plague" in page.inner_text("#final") and "SLOT" not in page.content()


def test_a_game_survives_sigkill_of_the_server(page, tmp_path):
    """Issue 26 item 7: SIGKILL mid-game, ``serve`` started again on the same database and port: the same
    page reconnects by itself and the game is finished from it."""
    from conftest import serve_process

    db = tmp_path / "games.sqlite"
    with serve_process(db) as (base, process):
        port = int(base.rsplit(":", 1)[1])
        start_game(page, base, "david_goliath", ["human", "heuristic", "random"], seed=9)
        for _ in range(5):
            assert your_turn(page)
            click_and_wait(page, page.locator("#hand button.card:enabled").first)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    page.wait_for_function("document.body.classList.contains('offline')")
    with serve_process(db, port=port):
        clicks = 5
        while your_turn(page):
            click_and_wait(page, page.locator("#hand button.card:enabled").first)
            clicks += 1
        assert clicks == 45 and "Game over" in page.inner_text("#status")
        assert not page.locator("#hand").count()  # no empty hand box at the end
