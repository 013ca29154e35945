"""League storage: one SQLite file, written with sqlite-utils, and the only code of the
arena that holds SQL.

`schema` makes and opens a database (numbered migrations), `writes` stores leagues,
matches and ratings (each in one transaction), `reads` answers every question the
tables, ratings and reports ask. `replay_codec` packs and unpacks every stored replay,
and `compaction` is the compact store's migration (13) and its deal-score rows.
"""

from arena.league.store.reads import (
    contract_means,
    entrant_names,
    entrant_stats,
    fault_records,
    game_records,
    game_replay,
    latest_ratings,
    league_facts,
    league_id_by_name,
    league_record,
    league_settings,
    load_outcomes,
    match_records,
    played_games,
    stored_deal_key,
    stored_match_indexes,
    strain_counts,
)
from arena.league.store.schema import (
    MIGRATIONS,
    history_of,
    migrate,
    missing_db_message,
    open_db,
    open_existing,
    upgrade,
)
from arena.league.store.writes import (
    append_ratings,
    clear_in_flight,
    ensure_league,
    mark_in_flight,
    replace_ratings,
    rerate_league,
    store_match,
)

__all__ = [
    "MIGRATIONS",
    "append_ratings",
    "clear_in_flight",
    "contract_means",
    "ensure_league",
    "entrant_names",
    "entrant_stats",
    "fault_records",
    "game_records",
    "game_replay",
    "history_of",
    "latest_ratings",
    "league_facts",
    "league_id_by_name",
    "league_record",
    "league_settings",
    "load_outcomes",
    "mark_in_flight",
    "match_records",
    "played_games",
    "migrate",
    "missing_db_message",
    "open_db",
    "open_existing",
    "replace_ratings",
    "rerate_league",
    "store_match",
    "stored_deal_key",
    "stored_match_indexes",
    "strain_counts",
    "upgrade",
]
