"""AWS timestamps as botocore parses them: the fast path for the forms AWS sends gives the same instant and the same
text in every answer, and anything else is still botocore's."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.utils import parse_timestamp

from aws_data_mcp.aws import parse_aws_timestamp

SENT = ["2026-11-24T22:44:31.000Z", "2026-11-24T22:44:31Z", "2026-11-24T22:44:31.123456Z",
        "Tue, 24 Nov 2026 22:44:31 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"]
"""What AWS sends: ISO 8601 in UTC (XML bodies), RFC 1123 in GMT (headers)."""
OTHER: list[Any] = ["1700000000", 1700000000.5, "2026-11-24T22:44:31+02:00", "2026-11-24T22:44:31.123456789Z",
                    "2026-11-24 22:44:31 GMT"]


@pytest.mark.parametrize("value", SENT + OTHER)
def test_the_same_instant_and_text_as_botocore(value: Any) -> None:
    ours, botocore = parse_aws_timestamp(value), parse_timestamp(value)
    assert (ours, ours.isoformat(), ours.utcoffset()) == (botocore, botocore.isoformat(), botocore.utcoffset())


@pytest.mark.parametrize("value", ["garbageZ", "Mon, 99 Nov 2026 22:44:31 GMT"])
def test_what_botocore_refuses_is_refused_alike(value: str) -> None:
    with pytest.raises(ValueError) as ours:
        parse_aws_timestamp(value)
    with pytest.raises(ValueError) as botocore:
        parse_timestamp(value)
    assert str(ours.value) == str(botocore.value)
