"""The table's web server: a person's page at an `arena play` table (docs/human.md)."""
