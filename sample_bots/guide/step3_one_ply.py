import statistics

from arena.sdk import Bot, serve


class OnePly(Bot):
    name = "one-ply"
    games = ("trix", "trianon")

    def act(self, turn):
        if len(turn.legal) == 1:
            return turn.legal[0]
        me = turn.state().seat
        deals = turn.sample_deals(8, turn.rng)

        def mean_score(action):
            return statistics.fmean(deal.apply(action).play_out()[me] for deal in deals)

        return max(turn.legal, key=mean_score)


if __name__ == "__main__":
    serve(OnePly())
