"""The league site as a bot author and a spectator read it (issue 28, items 9-16), in
a real browser: axe-core finds no serious or critical violation on any page type,
names are isolated for direction, faults link and show their logs, full names show on
hover, the table fits a laptop and explains its abbreviations, the keyboard works, the
phone width keeps the controls together, and every text colour pair of the style
sheets has a contrast of 4.5:1 or more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.league.store import game_replay, league_id_by_name, open_existing, site_reads
from tests.browser.conftest import SCREENSHOTS, served
from tests.support.site_league import build_site_db, live_match

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "browser" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
STATIC = ROOT / "arena" / "web" / "static"
NAMES = ("greedy", "random", "first", "random-2", "illegal")


def _game_ids(db: Path) -> list[int]:
    conn = open_existing(db)
    try:
        return site_reads.league_game_ids(conn, league_id_by_name(conn, "trix-site")[0])
    finally:
        conn.close()


@pytest.fixture
def checked(browser):
    """A page that may inject axe-core (the site's CSP forbids inline scripts, so the
    context bypasses it for the checker alone)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    yield context.new_page()
    context.close()


def _axe(page) -> list[dict]:
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed at {AXE}: `make axe` installs it", pytrace=False)
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"][:3]]}
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


def _page_types(url: str, db: Path) -> dict[str, str]:
    game = _game_ids(db)[0]
    return {
        "leagues": f"{url}/",
        "league": f"{url}/league/trix-site",
        "trianon league": f"{url}/league/trianon-site",
        "entrant": f"{url}/league/trix-site/entrant/illegal",
        "match": f"{url}/league/trix-site/match/0",
        "match in flight": f"{url}/league/trix-site/match/100",
        "viewer": f"{url}/game/{game}#deal=1&step=5",
        "live viewer": f"{url}/league/trix-site/match/100/live",
        "faults": f"{url}/league/trix-site/faults",
        "not found": f"{url}/league/nope",
    }


def test_axe_finds_no_serious_violation_on_any_page_type(checked, tmp_path) -> None:
    db = build_site_db(tmp_path)
    live_match(db, rotation=3, steps=40)
    found = {}
    with served(db) as url:
        for kind, address in _page_types(url, db).items():
            for width in (1280, 390):
                checked.set_viewport_size({"width": width, "height": 900})
                checked.goto(address)
                if "game" in address or "live" in address:
                    checked.wait_for_selector("#step-label[data-step]")
                violations = _axe(checked)
                if violations:
                    found[f"{kind} at {width}"] = violations
    assert found == {}


def test_every_name_is_isolated_for_direction(page, server, site_db) -> None:
    """A right-to-left name must not turn the text beside it around: each shown name
    is inside <bdi> or an element with dir="auto"."""
    for address in _page_types(server, site_db).values():
        if "100" in address or address.endswith("/nope"):
            continue  # not in flight on this server; a 404 shows no name
        page.goto(address)
        if "/game/" in address:
            page.wait_for_selector("#step-label[data-step]")
        bare = page.evaluate(
            """names => {
              const out = [];
              const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
              while (walk.nextNode()) {
                const node = walk.currentNode, text = node.textContent.trim();
                const el = node.parentElement;
                if (!names.includes(text) || el.closest('option, script, title, svg')) continue;
                if (!el.closest('bdi, [dir=auto]')) out.push(el.outerHTML.slice(0, 80));
              }
              return out;
            }""",
            [n for n in NAMES if n != "illegal"],  # also a fault's kind, which is no name
        )
        assert bare == [], address


def test_faults_link_their_entrant_and_show_the_log_once(page, server) -> None:
    page.goto(f"{server}/league/trix-site/faults")
    row = page.locator("#faults tbody tr").first
    assert row.locator("a.entrant").get_attribute("href").endswith("/entrant/illegal")
    row.locator("summary").click()
    detail = row.locator("pre.fault-detail").text_content()
    assert detail
    cell = row.locator("td.detail").inner_text()
    got = row.get_attribute("data-kind")
    assert got == "illegal"
    first_line = detail.splitlines()[0]
    assert cell.count(first_line) <= 2  # summary and whole text, no third copy as "got"
    log = row.locator("td.detail code").first.text_content()
    assert log.endswith(".log") and "/" not in log  # the bot's log, by its name only
    # what the bot printed, or that it printed nothing (this bot writes no log line)
    assert row.locator("pre.log").count() == 1 or f"the bot's log {log} is empty" in cell
    height = row.bounding_box()["height"]
    page.set_viewport_size({"width": 390, "height": 800})
    page.reload()
    assert page.locator("#faults tbody tr").first.bounding_box()["height"] < 160 > height / 4
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing cut off
    page.screenshot(path=str(SCREENSHOTS / "faults-390.png"), full_page=True)
    page.locator("#faults tbody tr a.entrant").first.click()
    page.wait_for_selector("#per-contract")
    assert "illegal" in page.text_content("h1")


def test_full_names_on_hover_and_at_phone_width(page, server, site_db) -> None:
    game = _game_ids(site_db)[0]
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{server}/game/{game}#deal=1&step=3")
        page.wait_for_selector("#step-label[data-step]")
        heads = page.locator("#scores thead th[data-seat]")
        titles = [heads.nth(i).get_attribute("title") for i in range(heads.count())]
        assert set(titles) <= set(NAMES) and len(titles) == 4
        assert "1 cards" not in page.inner_text("#viewer")
        for i in range(heads.count()):  # the whole name shown, none cut short ("ran…")
            box = heads.nth(i)
            assert box.inner_text().strip() == titles[i]
            assert box.evaluate("e => e.scrollWidth <= e.clientWidth"), titles[i]
        page.screenshot(path=str(SCREENSHOTS / f"viewer-{width}.png"))
    prev = page.locator("#prev").bounding_box()
    nxt = page.locator("#next").bounding_box()
    assert abs(prev["y"] - nxt["y"]) < 4  # ◀ and ▶ on one row at 390 px
    scores = page.locator("#scores").bounding_box()
    assert scores["y"] < 900  # the score panel above the fold


def test_long_names_are_shown_whole_in_the_viewer(page, site_db, game_page) -> None:
    """Names as long as bots' real ones (random-python, random-javascript) are not cut
    to "ran…" in the score columns, at a laptop's width or a phone's."""
    conn = open_existing(site_db)
    try:
        replay = game_replay(conn, _game_ids(site_db)[0])
    finally:
        conn.close()
    long = ["random-python-bot", "random-javascript", "greedy-lookahead-2", "first-legal-card"]
    replay = {**replay, "players": long}
    url = game_page(replay)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{url}#deal=1&step=3")
        page.wait_for_selector("#step-label[data-step]")
        heads = page.locator("#scores thead th[data-seat]")
        for i, name in enumerate(long):
            assert heads.nth(i).inner_text().strip() == name
            assert heads.nth(i).get_attribute("title") == name  # and on hover
            assert heads.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth"), (width, name)
        names = page.locator(".seat-head .name")
        assert sorted(names.all_inner_texts()) == sorted(long)


def test_the_live_viewer_hands_over_to_the_stored_game(page, server, site_db) -> None:
    page.goto(f"{server}/league/trix-site/match/0/live")
    page.wait_for_selector("#step-label[data-step]")
    assert re.search(r"/game/[0-9]+(#.*)?$", page.url)  # the stored game, not "Not found"
    assert "Not found" not in page.inner_text("body")


def test_the_table_fits_1280_and_explains_its_abbreviations(page, server) -> None:
    page.goto(f"{server}/league/trix-site")
    table = page.locator("#league-table").bounding_box()
    assert table["x"] + table["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    key = page.inner_text("#table-key")
    for short, long in (("D", "diamonds"), ("KH", "king-of-hearts"), ("NT", "no-tricks"),
                        ("Q", "queens"), ("T", "trix")):  # fmt: skip
        assert page.locator(f'#table-key abbr[title="{long}"]').inner_text() == short
        assert long in key
    assert "leads by rating" in page.inner_text("#standing") or "is first" in page.inner_text(
        "#standing"
    )
    page.screenshot(path=str(SCREENSHOTS / "league-1280.png"), full_page=True)


def test_keyboard_focus_and_accessible_names(page, server, site_db) -> None:
    game = _game_ids(site_db)[0]
    page.goto(f"{server}/game/{game}")
    page.wait_for_selector("#step-label[data-step]")
    page.select_option("#deal-select", "3")
    page.wait_for_function("() => document.getElementById('step-label').dataset.deal === '3'")
    page.keyboard.press("ArrowRight")
    label = page.locator("#step-label")
    page.wait_for_function("() => document.getElementById('step-label').dataset.step === '1'")
    assert label.get_attribute("data-deal") == "3"  # a step, not a jump of a deal
    for name in ("step back", "step forward", "previous deal", "next deal"):
        assert page.get_by_role("button", name=name).count() == 1
    page.goto(f"{server}/league/trix-site/entrant/greedy")
    header = page.locator("#entrant-games thead th").nth(4)
    header.focus()
    assert page.evaluate("document.activeElement.textContent") == "total"
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "ascending"


# ---- contrast of every text colour pair of the style sheets -------------------------


def _hex(colour: str) -> tuple[float, float, float]:
    colour = colour.strip().lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))


def _luminance(colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _hex(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours (#rgb or #rrggbb)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rules(css: str) -> list[tuple[str, dict[str, str]]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@media[^{]*\{", "", css)
    out = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        decls = dict(
            (k.strip(), v.strip())
            for k, v in (d.split(":", 1) for d in body.split(";") if ":" in d)
        )
        out.append((selector.strip(), decls))
    return out


FELT_TEXT = re.compile(
    r"^\.(table|seat|played|role|center)\b|^#(trick|last-trick|contract|deal-end)"
)


def text_colour_pairs() -> list[tuple[str, str, str]]:
    """Every (selector, text colour, background) the style sheets can put together: a
    rule's colour on its own background, else on what it is drawn over (the page, the
    felt's two greens for the table's text, white for a card)."""
    site = _rules((STATIC / "site.css").read_text())
    viewer = _rules((STATIC / "viewer.css").read_text())
    table = _rules((STATIC / "table.css").read_text())  # a person's seat (docs/human.md)

    def variables_of(rules: list) -> dict[str, str]:
        return {k: v for _, decls in rules for k, v in decls.items() if k.startswith("--")}

    pairs = []
    site_vars = variables_of(site)
    viewer_vars = {**site_vars, **variables_of(viewer)}
    sheets = ((site, site_vars), (viewer, viewer_vars), (table, viewer_vars))
    for sheet, variables in sheets:
        pairs += _pairs(sheet, variables)
    return pairs


def _pairs(rules: list, variables: dict[str, str]) -> list[tuple[str, str, str]]:
    def resolve(value: str) -> list[str]:
        value = re.sub(r"var\((--[a-z-]+)\)", lambda m: variables[m.group(1)], value)
        return re.findall(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b", value)

    pairs = []
    for selector, decls in rules:
        colours = resolve(decls.get("color", ""))
        if not colours:
            continue
        backgrounds = resolve(decls.get("background", decls.get("background-color", "")))
        if not backgrounds:
            if selector.startswith(".card"):
                backgrounds = ["#ffffff"]
            elif FELT_TEXT.search(selector):
                backgrounds = resolve("var(--felt) var(--felt-edge)")
            else:
                backgrounds = [variables["--bg"], "#ffffff", "#f1f3f6"]
        pairs += [(selector, c, b) for c in colours for b in backgrounds]
    return pairs


def test_every_text_colour_pair_has_a_contrast_of_4_5() -> None:
    pairs = text_colour_pairs()
    assert len(pairs) > 20
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    low = [(s, c, b, round(contrast(c, b), 2)) for s, c, b in pairs if contrast(c, b) < 4.5]
    assert low == []
