"""reading/call_memo: within one read each AWS question is asked once (side by side too), outside a read every time;
the caller's policy reads are kept across reads for that caller only. Counted as moto receives the requests (a
`before-send` hook on each caller's session), through the server's own clients (`aws.client`)."""

from __future__ import annotations

import contextvars
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.config import Settings
from aws_data_mcp.reading.call_memo import KEPT, across_reads, read_scope

SETTINGS = Settings(mode="local")


def _caller(key: str) -> tuple[boto3.Session, Counter[str]]:
    """A session of its own (one caller's) and the requests it sends, by operation."""
    session = boto3.Session(aws_access_key_id=key, aws_secret_access_key="secret", region_name="us-east-1")
    sent: Counter[str] = Counter()
    session.events.register("before-send", lambda event_name, **_: sent.update([event_name.split(".", 1)[1]]))
    return session, sent


@pytest.fixture
def user(moto_endpoint: str) -> str:
    name = f"memo-{uuid.uuid4().hex[:8]}"
    boto3.client("iam", region_name="us-east-1").create_user(UserName=name)
    KEPT.clear()
    return name


def test_one_read_asks_each_question_once_and_outside_a_read_every_time(user: str) -> None:
    session, sent = _caller("AKIAMEMO1")
    iam = client(session, "iam", SETTINGS)
    with read_scope("caller-1") as memo:
        first, again = iam.get_user(UserName=user), iam.get_user(UserName=user)
        iam.list_users()
    assert first["User"] == again["User"] and sent["iam.GetUser"] == 1 and sent["iam.ListUsers"] == 1
    assert (memo.asked, memo.shared) == (2, 1)
    iam.get_user(UserName=user)
    iam.get_user(UserName=user)
    assert sent["iam.GetUser"] == 3  # no read: nothing shared


def test_a_refusal_is_shared_within_the_read_too(user: str) -> None:
    session, sent = _caller("AKIAMEMO2")
    iam = client(session, "iam", SETTINGS)
    with read_scope("caller-2"):
        for _ in range(2):
            with pytest.raises(ClientError) as refused:
                iam.get_user(UserName=f"{user}-missing")
            assert refused.value.response["Error"]["Code"] == "NoSuchEntity"
    assert sent["iam.GetUser"] == 1


def test_side_by_side_the_same_question_is_sent_once(user: str) -> None:
    session, sent = _caller("AKIAMEMO3")
    iam = client(session, "iam", SETTINGS)
    with read_scope("caller-3"), ThreadPoolExecutor(8) as pool:
        contexts = [contextvars.copy_context() for _ in range(8)]  # as the fan-out's workers copy the read's
        answers = list(pool.map(lambda context: context.run(iam.list_users), contexts))
    assert sent["iam.ListUsers"] == 1 and len({str(a["Users"]) for a in answers}) == 1


def test_the_callers_policy_reads_are_kept_across_reads_for_that_caller_only(user: str) -> None:
    alice, alice_sent = _caller("AKIAMEMOALICE")
    bob, bob_sent = _caller("AKIAMEMOBOB")

    def read_as(session: boto3.Session, digest: str) -> Any:
        with read_scope(digest):
            return across_reads(client(session, "iam", SETTINGS).get_user)(UserName=user)

    read_as(alice, "alice")
    read_as(alice, "alice")  # the next read, same caller: kept
    assert alice_sent["iam.GetUser"] == 1
    read_as(bob, "bob")  # another caller: never served alice's answer
    assert bob_sent["iam.GetUser"] == 1
    with read_scope("alice"):
        client(alice, "iam", SETTINGS).get_user(UserName=user)  # not asked under across_reads: asked
    assert alice_sent["iam.GetUser"] == 2
