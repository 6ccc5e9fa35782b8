"""Fixtures the host tests share."""

import pytest

from peers import ReferenceDevice


@pytest.fixture
def device():
    """make(**options) -> a ReferenceDevice on a local socket (closed after the test)."""
    made = []

    def make(**kw):
        made.append(ReferenceDevice(**kw))
        return made[-1]

    yield make
    for d in made:
        d.close()
