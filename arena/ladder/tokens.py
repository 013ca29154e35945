"""Author tokens: made once, shown once, kept only as salted hashes.

A token is what an author's commands prove who they are with (`--token` or
`ARENA_TOKEN`). The database holds an argon2id hash of it (argon2-cffi: a salt of its
own per hash, and memory-hard, so a copied database does not give tokens away), never
the token: `arena ladder author add` prints it once, and no command prints, logs or
stores it again. A token carries its author's name in front (`NAME.SECRET`, the secret
32 random bytes in URL-safe base64) so that one hash is checked per attempt, not every
author's; the name is not a secret.
"""

from __future__ import annotations

import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

SECRET_BYTES = 32
MAX_TOKEN_CHARS = 1_000  # a token is about 50 characters; longer is not one of ours
_HASHER = PasswordHasher()  # argon2id with the library's recommended parameters


def new_token(author: str) -> str:
    """A fresh token for `author`: their name, a dot, and 32 random bytes."""
    return f"{author}.{secrets.token_urlsafe(SECRET_BYTES)}"


def token_author(token: str) -> str | None:
    """The author a token names (None when it is not shaped as a token): which hash to
    check it against. The name alone proves nothing."""
    if not token or len(token) > MAX_TOKEN_CHARS or "." not in token:
        return None
    author, _, secret = token.rpartition(".")
    return author if author and secret else None


def hash_token(token: str) -> str:
    """The salted argon2id hash to store for `token`."""
    return _HASHER.hash(token)


def token_matches(token: str, stored_hash: str | None) -> bool:
    """Whether `token` is the one `stored_hash` was made from; argon2 compares in
    constant time, and a hash that is missing or damaged matches nothing."""
    if not stored_hash or not token or len(token) > MAX_TOKEN_CHARS:
        return False
    try:
        return _HASHER.verify(stored_hash, token)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
