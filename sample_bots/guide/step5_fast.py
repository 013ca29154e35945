import random

from arena.sdk import Bot, serve
from arena.sdk.fast import trianon, trix
from arena.strategies.sampler.playout import policy_action

ENGINES = {"trix": trix, "trianon": trianon}
SAMPLES = 24


def margin(scores, me):
    """The seat's score less the others' mean: what a seat-rotated match measures."""
    return scores[me] - (sum(scores) - scores[me]) / (len(scores) - 1)


def candidates(state):
    """The actions worth trying: every one, but in a Trianon bid only passing and the
    bids up to two tricks above the lowest one legal (a bid is 6 strains a trick)."""
    actions = list(state.actions)
    if state.game == "trianon" and state.kind == "bid" and len(actions) > 1:
        return actions[: 1 + 3 * 6]
    return actions


class Fast(Bot):
    name = "fast"
    games = ("trix", "trianon")

    def act(self, turn):
        state = turn.state()
        if len(state.actions) == 1:
            return 0
        engine = ENGINES[state.game]
        rnd = random.Random(turn.rng.random()).random
        tried = candidates(state)
        totals = [0.0] * len(tried)
        for deal in state.sample_deals(SAMPLES, turn.rng):
            root = deal.engine_state
            ended = len(root.deal_scores) + 1  # once this deal is scored, it is over
            for i, action in enumerate(tried):
                line = engine.copy_state(root)
                engine.apply_legal(line, action)
                while line.to_move >= 0 and len(line.deal_scores) < ended:
                    engine.apply_legal(line, policy_action(line, rnd))
                totals[i] += margin(line.deal_scores[-1], state.seat)
        return state.actions.index(tried[totals.index(max(totals))])


if __name__ == "__main__":
    serve(Fast())
