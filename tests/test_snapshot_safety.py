"""SnapStart: keys made on first use, not at import (what importing the Lambda entry does: test_init_phase.py)."""

from __future__ import annotations


def test_request_state_still_round_trips_after_the_key_is_made() -> None:
    from aws_data_mcp.server.request_state import KeyedOnFirstUseCodec

    codec = KeyedOnFirstUseCodec()
    assert codec.unseal(codec.seal(b"state")) == b"state"
