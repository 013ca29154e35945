"""The league's web site: `arena serve` (a read-only web application over a league
database, live while `arena run` writes to it) and `arena report` (the same pages as
static files). Pages are rendered on the server from the store's reads; what a seat
knew in a game comes from the engine's `observe` (arena/play/replay_frames.py), never
from the browser."""
