"""reading/call_memo: each caller of a shared answer gets its own copy, so what one reader changes in it (a
resolver sorting a list, botocore's handlers decoding a field) never reaches the next."""

from __future__ import annotations

import uuid

import boto3

from aws_data_mcp.aws import client
from aws_data_mcp.config import Settings
from aws_data_mcp.reading.call_memo import KEPT, read_scope


def test_a_shared_answer_changed_by_one_reader_is_whole_for_the_next(moto_endpoint: str) -> None:
    name = f"copies-{uuid.uuid4().hex[:8]}"
    boto3.client("iam", region_name="us-east-1").create_user(UserName=name, Tags=[{"Key": "team", "Value": "a"}])
    KEPT.clear()
    session = boto3.Session(aws_access_key_id="AKIACOPIES", aws_secret_access_key="secret", region_name="us-east-1")
    iam = client(session, "iam", Settings(mode="local"))
    with read_scope("caller-copies") as memo:
        first = iam.get_user(UserName=name)
        created = first["User"]["CreateDate"]
        first["User"]["Tags"].append({"Key": "changed", "Value": "by the first reader"})
        first["User"]["UserName"] = "renamed"
        second = iam.get_user(UserName=name)
        second["ResponseMetadata"].clear()
        third = iam.get_user(UserName=name)
    assert (memo.asked, memo.shared) == (1, 2)  # one question, answered twice from the memo
    assert second["User"]["UserName"] == third["User"]["UserName"] == name
    assert second["User"]["Tags"] == third["User"]["Tags"] == [{"Key": "team", "Value": "a"}]
    assert third["User"]["CreateDate"] == created and third["ResponseMetadata"]["HTTPStatusCode"] == 200
