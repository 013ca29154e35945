"""A continuous ladder: submissions, versions, the gate, matchmaking and promotion."""
