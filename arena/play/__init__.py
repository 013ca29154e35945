"""Playing games: the referee that drives one game between players and records every
fault, seat-rotated matches over the same deals, and replays (building, checking and
showing them). Depends on the rules engines only; players are whatever implements
`arena.play.referee.Player`.
"""
