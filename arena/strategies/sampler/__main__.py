"""Serve the sampler bot: `python -m arena.strategies.sampler --budget-ms 200`.

The referee starts it like any bot command and sets ARENA_BOT_ADDRESS; `--samples N`
fixes the work per decision (reproducible), still capped by the time limits.
"""

from __future__ import annotations

import argparse

from arena.sdk import serve
from arena.strategies.sampler.bot import DEFAULT_BUDGET_MS, SamplerBot


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arena.strategies.sampler")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=DEFAULT_BUDGET_MS,
        help=f"thinking time per decision in ms (default {DEFAULT_BUDGET_MS}; never more "
        "than half the time the referee allows)",
    )
    parser.add_argument(
        "--samples", type=int, default=None, help="sampled deals per decision (default: time)"
    )
    args = parser.parse_args(argv)
    if args.budget_ms <= 0 or (args.samples is not None and args.samples < 1):
        parser.error("--budget-ms and --samples must be positive")
    serve(SamplerBot(args.budget_ms, args.samples))


if __name__ == "__main__":
    main()
