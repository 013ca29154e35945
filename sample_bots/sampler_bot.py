"""The search bot for Trix and Trianon, as a script:
`python sample_bots/sampler_bot.py [--budget-ms MS] [--samples N]`.

The bot itself is `arena.strategies.sampler` (perfect-information Monte Carlo: it
samples the hands its seat's observation allows and plays each legal action forward
with the arena's own engine); `python -m arena.strategies.sampler` serves the same bot,
and `builtin:sampler:MS` is its in-process twin.
"""

from arena.strategies.sampler.__main__ import main

if __name__ == "__main__":
    main()
