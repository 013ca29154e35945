"""One root error for the arena, with narrow children the CLI maps to clear messages."""


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class ConfigError(ArenaError, ValueError):
    """A setting, option, bot spec or file given by the user is not valid."""


class IllegalAction(ArenaError, ValueError):
    """An action that the rules do not allow in the current state."""


class CardError(ArenaError, ValueError):
    """A card code that is not one of the deck's codes (docs/rules/trix.md T-1.4)."""


class BotError(ArenaError):
    """A bot did not answer as the protocol requires."""


class StorageError(ArenaError):
    """The league database could not be written (a full disk, a read-only file, a lock
    held too long); what is stored already is kept."""
