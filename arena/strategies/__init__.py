"""Bot strategies written with the SDK (`arena.sdk`), that the arena itself uses as
opponents and baselines.

- `arena.strategies.greedy`: the heuristic bot for Trix and Trianon (`GreedyBot`);
- `arena.strategies.ladder`: a bot of known strength, the greedy move with probability
  p, else a random one (`LadderBot`; `arena bench rating` plays it in process);
- `arena.strategies.uniform`: a uniformly random legal move (`RandomBot`, the
  benchmarks' external bot).

Each plays from what the SDK decodes, as an external bot does (none imports the rules
engine), and each runs as one: `python -m arena.strategies.greedy`. The scripts in
`sample_bots/` are thin wrappers over them; nothing in `arena` reaches into that folder,
so an installed package (not editable) has all it needs. Importing this package
imports nothing else.
"""
