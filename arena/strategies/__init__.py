"""Bots that play the arena's games well enough to be worth playing against."""
