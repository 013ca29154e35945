from arena.sdk import Bot, serve

RANKS = "23456789TJQKA"  # Trix's order; Trianon's deck starts at the 6 (N-1.3)


def rank(card):
    return RANKS.index(card[0])


def read(game, kind, view, legal):
    """An action from what the seat sees: duck tricks in Trix and in a Trianon with no
    declarer; win them cheaply once Trianon has a declarer."""
    if kind != "play" or len(legal) == 1:
        return legal[0]  # contracts, exposures, bids: the first legal action
    cards = sorted((a["card"] for a in legal), key=rank)
    trick = view["trick"]
    if not trick:
        return cards[0]  # leading: the lowest card
    led = trick[0]["card"][1]
    best = max((p["card"] for p in trick if p["card"][1] == led), key=rank)
    following = [c for c in cards if c[1] == led]
    wants_tricks = game == "trianon" and view["declarer"] >= 0
    if not following:
        return cards[0] if wants_tricks else cards[-1]  # void: keep or shed the highest
    below = [c for c in following if rank(c) < rank(best)]
    above = [c for c in following if rank(c) > rank(best)]
    if wants_tricks:
        return above[0] if above else following[0]  # win as cheaply as it can
    return below[-1] if below else following[-1]  # duck as high as it can


class Reader(Bot):
    name = "reader"
    games = ("trix", "trianon")

    def act(self, turn):
        return read(turn.game["game"], turn.kind, turn.view, turn.legal)


if __name__ == "__main__":
    serve(Reader())
