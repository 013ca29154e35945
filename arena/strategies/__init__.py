"""Bot strategies written with the SDK (`arena.sdk`), that the arena itself uses as
opponents and baselines.

- `arena.strategies.greedy`: the heuristic bot for Trix and Trianon (`GreedyBot`);
- `arena.strategies.mixed`: a bot of known strength, the greedy move with probability
  p, else a random one (`MixedBot`; `arena bench rating` plays it in process);
  `arena.strategies.ladder` is its deprecated old name, an alias;
- `arena.strategies.uniform`: a uniformly random legal move (`RandomBot`, the
  benchmarks' external bot);
- `arena.strategies.sampler`: a search bot (`SamplerBot`): it samples the hidden hands
  its seat's observation allows and plays each legal action forward in every sample
  with the project's own engine, in its own process.

Each plays from what the SDK decodes, as an external bot does (the sampler rebuilds the
engine's view of its seat from it; none reads anything the referee holds), and each
runs as one: `python -m arena.strategies.greedy`. The scripts in
`sample_bots/` are thin wrappers over them; nothing in `arena` reaches into that folder,
so an installed package (not editable) has all it needs. Importing this package
imports nothing else.
"""
