"""One root error for the arena, with narrow children the CLI maps to clear messages."""


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class ConfigError(ArenaError, ValueError):
    """A setting, option, bot spec or file given by the user is not valid."""


class IllegalAction(ArenaError, ValueError):
    """An action that the rules do not allow in the current state."""


class CardError(ArenaError, ValueError):
    """A card code that is not one of the deck's codes (docs/rules/trix.md T-1.4)."""


class StorageError(ArenaError):
    """The league database could not be written (a full disk, a read-only file, a lock
    held too long); what is stored already is kept."""


class LeagueLocked(ArenaError):
    """Another process is running this league now (it holds the league's lock next to
    the database): a second run would play and store the same matches again. Not a
    setting to fix; wait for that run to end, or stop it."""


class SchemaError(ArenaError):
    """The file given as a league database is refused as it is: not a league database
    at all, or one of a schema version newer than this arena knows (or, for a reading
    command, which never changes a database, older). Nothing in it was changed."""


class SandboxError(ArenaError):
    """Bots cannot be started confined as asked on this machine: bubblewrap is missing
    or cannot make namespaces, a bot's cgroup cannot be made, or a bot's folder is
    closed to the user of its own a sandboxed bot runs as. The message says what to
    install or change, or how to run trusted bots without the sandbox."""


class ForgedResult(ArenaError):
    """A match a worker sent back is not what the engine plays from its seed (another
    table, seat order, deal, event, score or fault than the referee's): the main process
    refuses to store it. Raised by the league's own check, never by a user's input."""
