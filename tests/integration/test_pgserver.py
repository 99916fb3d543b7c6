"""The throwaway PostgreSQL server from ``tests/pgserver.py`` really works."""

from __future__ import annotations

import psycopg
import pytest
from pgserver import PgServer
from psycopg.conninfo import conninfo_to_dict, make_conninfo

pytestmark = pytest.mark.postgres


def test_select_one(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("select 1").fetchone()
    assert row == (1,)


def test_each_test_gets_its_own_database(pg_server: PgServer, pg_url: str) -> None:
    other_url = pg_server.create_database("t_second_database")
    assert other_url != pg_url

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("create table marker (x int)")
        row = conn.execute("select current_database()").fetchone()
        assert row is not None
        first_name = row[0]
    with psycopg.connect(other_url) as conn:
        row = conn.execute("select current_database()").fetchone()
        assert row is not None
        assert row[0] != first_name
        found = conn.execute("select to_regclass('marker')").fetchone()
    assert found == (None,)


def test_url_shape(pg_server: PgServer, pg_url: str) -> None:
    params = conninfo_to_dict(pg_url)
    assert params["host"] == "127.0.0.1"
    assert params["port"] == str(pg_server.port)
    assert params["user"] == "trek"
    assert params["password"] == pg_server.password


def test_password_is_required(pg_server: PgServer, pg_url: str) -> None:
    # The password from the URL authenticates ...
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("select current_user").fetchone()
    assert row == ("trek",)

    # ... and password auth is really enforced: a wrong one is rejected.
    wrong = make_conninfo(pg_url, password="wrong-" + pg_server.password)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong)
