"""The browser tests' test server: a test's data goes only once the server has finished with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from annotator import taskqueue


@pytest.fixture(autouse=True)
def server_done_before_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """With the live server, wait at teardown until it serves no request and has run the work its
    requests left for after their responses (without a broker, in its own threads): the database's
    flush would otherwise meet that work's reads and deadlock. Set up after the database, so torn down
    before it."""
    if "live_server" not in request.fixturenames:
        yield
        return
    for name in ("transactional_db", "live_server"):
        request.getfixturevalue(name)
    yield
    assert taskqueue.wait_until_served(60), "the test server still served a request 60 s after its test"
