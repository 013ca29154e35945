"""Benchmarks that print figures (`arena bench ...`); nothing here is a test."""
