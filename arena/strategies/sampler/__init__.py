"""A perfect-information Monte Carlo bot for Trix and Trianon (see bot.py)."""

from arena.strategies.sampler.bot import Sampler, SamplerBot
from arena.strategies.sampler.player import SamplerPlayer

__all__ = ["Sampler", "SamplerBot", "SamplerPlayer"]
