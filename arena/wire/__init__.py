"""The wire: the protocol's generated code (`v1/`), protocol messages as plain data
(`messages`), engine views and actions encoded as request bytes (`codec`), and the gRPC
runtime and event loops the referee and the SDK share (`runtime`, `loop`).

Kept light on purpose: a bot importing the SDK loads `messages`, `loop` and `v1` but
never `codec`, which imports the rules engines.
"""
