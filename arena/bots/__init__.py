"""Players: in-process bots (`builtin:NAME`) and, from `arena.bots.spec`, everything else."""
