"""Leagues: league files, schedules, storage, ratings, the runner and the tables."""
