"""Competitions: a league is defined, stored, played by workers, run, rated and
reported, one sub-package a job, each using only those listed before it:

- `definition/`: what a league is (the league file, the schedule, the records that
  travel between the layers, the demo league the package ships);
- `store/`: the SQLite database, the only code that holds SQL;
- `standings/`: ratings, margins and their intervals, separation, the crosstable;
- `workers/`: what plays a match (match tasks, worker processes, executors, bot
  archives for a cluster, the live file of a match in flight);
- `running/`: the run loop and what it is fed (a league's schedule), the pre-flight
  check, the check of returned results, the league's lock, `arena play --db`;
- `reports/`: what the read-only commands print (tables, faults, comparisons).
"""
