"""What a league is: its file read and checked once (`config`), its matches
(`schedule`), the typed records that travel between workers, the runner and the store
(`records`), and the demo league the package ships (`demo`, `demos/`)."""
