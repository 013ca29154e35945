"""Where each page lives: one set of links for the server (`/league/NAME`) and one
for the static report (`league-NAME-1a2b3c.html`, every link relative, so the folder
works from any static host and from file://). Templates only ever ask a `Links`."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote


def _fragment(deal: int | None, step: int | None, event: int | None = None) -> str:
    """The viewer's place: a deal and a step, or a deal and the index of a replay
    event (a fault's `event`; the viewer finds its step)."""
    parts = [f"deal={deal}"] if deal is not None else []
    if step is not None:
        parts.append(f"step={step}")
    if event is not None:
        parts.append(f"event={event}")
    return "#" + "&".join(parts) if parts else ""


class Links:
    """The server's links (absolute paths under `/`)."""

    live = True  # pages poll for changes

    def index(self) -> str:
        return "/"

    def league(self, league: str) -> str:
        return f"/league/{quote(league, safe='')}"

    def entrant(self, league: str, entrant: str) -> str:
        return f"{self.league(league)}/entrant/{quote(entrant, safe='')}"

    def entrant_games(self, league: str, entrant: str, page: int) -> str:
        """Page `page` of an entrant's games (`pages.entrant_page`)."""
        return f"{self.entrant(league, entrant)}?page={page}"

    def match(self, league: str, idx: int) -> str:
        return f"{self.league(league)}/match/{idx}"

    def faults(self, league: str) -> str:
        return f"{self.league(league)}/faults"

    def game(
        self,
        game_id: int,
        deal: int | None = None,
        step: int | None = None,
        event: int | None = None,
    ) -> str:
        return f"/game/{game_id}{_fragment(deal, step, event)}"

    def deal_data(self, game_id: int, deal: int) -> str:
        return f"/game/{game_id}/deal/{deal}.json"

    def live_game(self, league: str, idx: int) -> str:
        """The game being played in match `idx` (server only: a report is not live)."""
        return f"{self.match(league, idx)}/live"

    def live_deal(self, league: str, idx: int, deal: int) -> str:
        return f"{self.live_game(league, idx)}/deal/{deal}.json"

    def static(self, name: str) -> str:
        return f"/static/{name}"

    def version(self) -> str:
        return "/api/version"


def file_part(name: str) -> str:
    """A name as part of a file name that no other name maps to: its safe characters
    and a short hash of the whole (two names that differ only in unsafe characters
    get different files)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40] or "x"
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


class ReportLinks(Links):
    """The static report's links: flat file names in one folder, relative. A game
    without a page in the report (`arena report --games`) links to the same game on
    `arena serve` at `serve_url` instead."""

    live = False

    def __init__(self, paged: frozenset[int] | None = None, serve_url: str = "") -> None:
        self.paged = paged  # the games that have a page; None: every game
        self.serve_url = serve_url.rstrip("/")

    def index(self) -> str:
        return "index.html"

    def league(self, league: str) -> str:
        return f"league-{file_part(league)}.html"

    def entrant(self, league: str, entrant: str) -> str:
        return f"entrant-{file_part(league)}-{file_part(entrant)}.html"

    def entrant_games(self, league: str, entrant: str, page: int) -> str:
        """The entrant's page, and its pages of later games in files of their own (a
        `file_part` ends in its hash: no entrant's page takes this name)."""
        first = self.entrant(league, entrant)
        return first if page == 1 else first.removesuffix(".html") + f"-games-{page}.html"

    def match(self, league: str, idx: int) -> str:
        return f"match-{file_part(league)}-{idx}.html"

    def faults(self, league: str) -> str:
        return f"faults-{file_part(league)}.html"

    def game(
        self,
        game_id: int,
        deal: int | None = None,
        step: int | None = None,
        event: int | None = None,
    ) -> str:
        if self.paged is not None and game_id not in self.paged:
            return f"{self.serve_url}/game/{game_id}{_fragment(deal, step, event)}"
        return f"game-{game_id}.html{_fragment(deal, step, event)}"

    def deal_data(self, game_id: int, deal: int) -> str:
        """Every deal of a game is in one script, the game's packed frames."""
        return f"data/game-{game_id}.js"

    def static(self, name: str) -> str:
        return f"static/{name}"

    def version(self) -> str:
        return ""
