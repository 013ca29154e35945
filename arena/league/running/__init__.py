"""Running a competition: the run loop (`runner`), the check that every entrant
starts before the first match (`preflight`), the check of every returned match with
the engine (`result_check`), the lock that lets one run write a league at a time
(`lock`), and `arena play --db` stored as a league (`play_db`)."""
