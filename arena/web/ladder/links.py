"""Where each page of the ladder site lives. The league site's templates (the replay
viewer, a match, the faults) ask a `Links` for a league's pages; here the ladder is
the site's one "league", so its league page is the table at `/` and an entrant's page
is its version's (`/bot/NAME/version/N`)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from arena.web.links import Links


class LadderLinks(Links):
    """The ladder site's links (absolute paths under `/`)."""

    def league(self, league: str) -> str:
        return "/"

    def entrant(self, league: str, entrant: str) -> str:
        bot, _, number = entrant.rpartition("@")
        if not bot or not number.isdigit():  # not a version's name: its bot's page
            return self.bot(entrant)
        return self.version_page(bot, int(number))

    def match(self, league: str, idx: int) -> str:
        return f"/match/{idx}"

    def faults(self, league: str) -> str:
        return "/faults"

    def bot(self, bot: str) -> str:
        return f"/bot/{quote(bot, safe='')}"

    def version_page(self, bot: str, number: int) -> str:
        return f"{self.bot(bot)}/version/{number}"

    def matches(self, **query: str | int | None) -> str:
        """The list of matches, with its filters (those given and not empty)."""
        given = {k: v for k, v in query.items() if v not in (None, "")}
        return "/matches" + ("?" + urlencode(given) if given else "")

    def queue(self) -> str:
        return "/queue"

    def api(self) -> str:
        return "/api/v1/openapi.json"
