"""The ladder's public site and the read side of its JSON API (`arena ladder serve`,
docs/ladder.md), built on the league site's pieces: its templates, replay viewer,
hardening and charts (arena/web/)."""
