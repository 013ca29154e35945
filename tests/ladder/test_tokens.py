"""Author tokens: shown once, stored only as salted argon2 hashes, checked in constant
time; a token of the wrong shape, another's, or a damaged hash matches nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder.tokens import hash_token, new_token, token_author, token_matches


def test_a_token_names_its_author_and_matches_only_its_own_hash() -> None:
    token = new_token("ann")
    other = new_token("ann")
    stored = hash_token(token)
    assert token_author(token) == "ann"
    assert token != other
    assert token_matches(token, stored)
    assert not token_matches(other, stored)
    assert token not in stored  # the hash does not hold the token


def test_hashes_are_salted_so_one_token_hashes_twice_differently() -> None:
    token = new_token("bo")
    first, second = hash_token(token), hash_token(token)
    assert first != second
    assert first.startswith("$argon2id$")
    assert token_matches(token, first) and token_matches(token, second)


def test_a_missing_or_damaged_hash_matches_nothing() -> None:
    token = new_token("cy")
    assert not token_matches(token, None)
    assert not token_matches(token, "")
    assert not token_matches(token, "$argon2id$v=19$garbage")
    assert not token_matches("", hash_token(token))


def test_an_author_name_with_dots_is_read_back_whole() -> None:
    assert token_author(new_token("dr.who")) == "dr.who"


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_token_of_some_author_or_of_none_and_never_raises(text: str) -> None:
    author = token_author(text)
    assert author is None or text.startswith(author + ".")
    assert token_author("x" * 2000) is None
