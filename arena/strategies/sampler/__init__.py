"""A perfect-information Monte Carlo bot for Trix and Trianon (see bot.py): it samples
the hidden hands its observation allows (the SDK's `turn.state().sample_deal`), plays
every legal action forward in each sample with a fast playout policy on the engine
(`playout`, `search`, over the SDK's fast level), and takes the action with the best
mean margin. It imports nothing of the arena but `arena.sdk`. `python -m
arena.strategies.sampler` serves it; `arena.bots.sampler` is its in-process twin."""

from arena.strategies.sampler.bot import Sampler, SamplerBot

__all__ = ["Sampler", "SamplerBot"]
