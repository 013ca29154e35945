"""Players: how a bot spec becomes a seat at the table.

`spec` (bot specs, and starting a table's players together), `builtin` (in-process
bots), `process` and `sandbox` (started bots, confined), `remote/` (bots over gRPC),
`local` and `mixed` (SDK bots run in process), `check` (`arena check-bot`), `sessions`
(`arena play`'s games and matches).
"""
