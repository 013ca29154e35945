"""Secret deal keys: where the deals of a league or a play session come from.

Every deal is a public function of its game seed (docs/rules/trix.md T-2.2,
docs/rules/trianon.md N-2.1), and a league's game seeds used to be a public function of
its league seed, so a bot that knew (or guessed) the league seed knew every hand. Now
each game seed is an HMAC of the public seed under a secret key of at least 128 bits,
which the arena makes, keeps in the league database and never sends to a bot: knowing
the league file, the schedule and every public seed tells a bot nothing about the
hands, and a replay (which holds its own game seed) tells nothing about another
match's. The same key and public seed always give the same game seed, so a league
replays exactly wherever its key is given (`deal_key` in the league file, `arena
play --deal-key`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

KEY_BYTES = 16  # 128 bits, as the fair-play rule asks at least
MIN_KEY_DIGITS = 2 * KEY_BYTES
MAX_KEY_DIGITS = 128  # 512 bits: more secret than SHA-256 can use
GAME_SEED_DIGITS = 32  # hex digits of a game seed: 128 bits, nothing to search


def new_deal_key() -> str:
    """A fresh random key from the operating system's generator, as hex digits."""
    return secrets.token_hex(KEY_BYTES)


def deal_key_problem(key: str) -> str | None:
    """Why `key` cannot be a deal key (with what to give instead), or None."""
    if not isinstance(key, str):
        return "must be a string of hex digits"
    digits = key.strip().lower()
    if len(digits) < MIN_KEY_DIGITS or len(digits) > MAX_KEY_DIGITS:
        return (
            f"must be {MIN_KEY_DIGITS} to {MAX_KEY_DIGITS} hex digits ({KEY_BYTES * 8} to "
            f"{MAX_KEY_DIGITS * 4} bits); got {len(digits)} characters. Make one with "
            '`python -c "import secrets; print(secrets.token_hex(16))"`, or leave it out '
            "and the arena makes one"
        )
    if any(c not in string.hexdigits for c in digits):
        return "must hold hex digits only (0-9, a-f)"
    if len(digits) % 2:
        return (
            f"must have an even number of hex digits (two a byte); got {len(digits)}: add "
            "or drop one digit, or leave it out and the arena makes one"
        )
    return None


def normal_key(key: str) -> str:
    """A checked key as stored and compared: stripped, lower case (ValueError if bad)."""
    problem = deal_key_problem(key)
    if problem:
        raise ValueError(f"deal key {problem}")
    return key.strip().lower()


def game_seed(key: str, public_seed: str) -> str:
    """The seed a game is dealt from: HMAC-SHA256 of the public seed (a league's match
    seed `SEED/i`, a play session's `SEED-i`) under the deal key. An empty key is the
    old rule (a league stored before keys existed): the public seed itself."""
    if not key:
        return public_seed
    mac = hmac.new(bytes.fromhex(normal_key(key)), b"arena deal\0" + public_seed.encode(), "sha256")
    return mac.hexdigest()[:GAME_SEED_DIGITS]


def key_fingerprint(key: str) -> str:
    """Eight hex digits that tell two keys apart without saying either (for messages)."""
    return hashlib.sha256(b"arena deal key\0" + key.encode()).hexdigest()[:8]
