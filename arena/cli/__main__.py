"""`python -m arena.cli ...` is the `arena` command."""

from arena.cli import main

main()
