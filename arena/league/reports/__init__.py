"""What the read-only commands show: the league table (`table`), fault reports
(`faults`), two entrants compared (`compare`), the text/JSON/markdown formats and their
escaping (`formats`), and each command in one call (`commands`)."""
