"""The ladder site's benches (docs/benchmarks.md): `arena bench ladder-web` (load.py:
readers and uploads over loopback while the ladder plays) and `arena bench
ladder-pages` (routes.py: every route over a ladder of 100,000 games), the ladder
written directly for it (big_ladder.py) and the benches' HTTP client (http.py)."""
