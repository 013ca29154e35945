import statistics

from step2_reader import read

from arena.sdk import Bot, serve


def margin(scores, me):
    """The seat's score less the others' mean: what a seat-rotated match measures."""
    others = [s for seat, s in enumerate(scores) if seat != me]
    return scores[me] - statistics.fmean(others)


def reader(deal):
    """Step 2's rules as the playout: every seat plays what it would see."""
    return read(deal.game, deal.kind, deal.view(), deal.legal)


class Margin(Bot):
    name = "margin"
    games = ("trix", "trianon")

    def act(self, turn):
        if len(turn.legal) == 1:
            return turn.legal[0]
        me = turn.state().seat
        deals = turn.sample_deals(8, turn.rng)

        def mean_margin(action):
            return statistics.fmean(
                margin(deal.apply(action).play_out(reader), me) for deal in deals
            )

        return max(turn.legal, key=mean_margin)


if __name__ == "__main__":
    serve(Margin())
