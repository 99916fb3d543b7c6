"""Masking a PostgreSQL password in a message masks the URL's password field and nothing else.

A message that carries the store's URL (a failure, a refusal) shows it with `***` where the
password was; every other character of the message is left as it was, even where it happens to
spell the password (password `1` and the host `127.0.0.1:1`).
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.stores import Location, StoreError

# Text around the URL in a message: anything but `@`, which no userinfo is without.
AROUND = st.text(st.characters(blacklist_characters="@", blacklist_categories=("Cs",)),
                 max_size=40)
USERS = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=8)
PASSWORDS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
HOSTS = st.sampled_from(["127.0.0.1", "localhost", "db.example.org", "10.1.1.1"])
PORTS = st.integers(1, 65535)


def _url(user: str, password: str, host: str, port: int) -> str:
    return (f"postgresql://{quote(user, safe='')}:{quote(password, safe='')}@{host}:{port}"
            "/trek")


def test_a_one_character_password_leaves_the_host_and_port_alone() -> None:
    url = "postgresql://trek:1@127.0.0.1:1/trek"
    location = Location.parse(url)
    message = f"cannot reach the PostgreSQL store {url}: connection to 127.0.0.1:1 failed"
    assert location.scrub(message) == (
        "cannot reach the PostgreSQL store postgresql://trek:***@127.0.0.1:1/trek: "
        "connection to 127.0.0.1:1 failed")


def test_the_userinfo_is_masked_wherever_it_is_repeated() -> None:
    location = Location.parse("postgresql://gm:s%40cret@db:5432/trek")
    # The password field as the URL spells it and as it reads decoded, and as a conninfo key.
    assert location.scrub("gm:s%40cret@db and gm:s@cret@db; password=s@cret here") == (
        "gm:***@db and gm:***@db; password=*** here")
    assert location.scrub("user gm and the word cret stay") == "user gm and the word cret stay"


@given(before=AROUND, after=AROUND, user=USERS, password=PASSWORDS, host=HOSTS, port=PORTS)
def test_only_the_password_field_of_the_url_is_masked(
        before: str, after: str, user: str, password: str, host: str, port: int) -> None:
    url = _url(user, password, host, port)
    location = Location.parse(url)
    scrubbed = location.scrub(before + url + after)
    # The text outside the URL is untouched, and the URL reads as its display (password ***).
    assert scrubbed == before + location.display + after
    assert f":{quote(password, safe='')}@" not in scrubbed
    assert f"{quote(user, safe='')}:***@{host}:{port}/trek" in scrubbed



@given(user=USERS, password=PASSWORDS, host=HOSTS, port=PORTS)
def test_a_location_shown_whole_shows_no_password(
        user: str, password: str, host: str, port: int) -> None:
    """A location in a traceback or a log line (its repr) reads as its display does."""
    location = Location.parse(_url(user, password, host, port))
    assert location.password == password
    assert repr(location) == f"Location(postgres, {location.display!r})"
    assert f":{quote(password, safe='')}@" not in repr(location)

@given(before=AROUND, after=AROUND, user=USERS, password=PASSWORDS, host=HOSTS, port=PORTS)
def test_a_userinfo_repeated_without_the_rest_of_the_url_is_masked(
        before: str, after: str, user: str, password: str, host: str, port: int) -> None:
    url = _url(user, password, host, port)
    field = f"{quote(user, safe='')}:{quote(password, safe='')}@"
    scrubbed = Location.parse(url).scrub(before + field + host + after)
    assert scrubbed == before + f"{quote(user, safe='')}:***@" + host + after


def test_a_malformed_url_is_refused_with_its_reason_whole() -> None:
    # The reason names the port's range; a password `5` leaves its digits alone.
    with pytest.raises(StoreError) as refused:
        Location.parse("postgresql://u:5@127.0.0.1:99999/x")
    assert "port out of range 0-65535" in str(refused.value)
    with pytest.raises(StoreError) as refused:
        Location.parse("postgresql://u:pw@[::1/x")
    assert "pw" not in str(refused.value)
