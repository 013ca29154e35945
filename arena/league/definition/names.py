"""What a name may hold and how names are compared: one place for the league file's
check, the tables' `text_safe` and the lookups by name.

Names are compared in Unicode's NFC form (`café` typed with a combining accent is the
same name as `café` with the letter é), and may hold any printable character plus the
invisible joiners emoji sequences are made of: the zero-width joiner (U+200D, in 👩‍💻),
the variation selectors and the tag characters of subdivision flags. Every other
format or control character (bidirectional overrides, newlines, escapes) is refused.
"""

from __future__ import annotations

import unicodedata

ZWJ = "\u200d"
EMOJI_JOINERS = frozenset({ZWJ, "\ufe0e", "\ufe0f"} | {chr(c) for c in range(0xE0020, 0xE0080)})


def nfc(name: str) -> str:
    """`name` in NFC form, as every name is stored and compared."""
    return unicodedata.normalize("NFC", name)


def shows(ch: str) -> bool:
    """Whether a name may hold `ch`: printable, or a joiner of emoji sequences."""
    return ch.isprintable() or ch in EMOJI_JOINERS
