"""Workflows in the stack's DynamoDB table (Lambda, and the demo's emulated account).

Keys are the owner's digest and the workflow id: a caller sees only its own.
It uses the function's own credentials, for this table only: workflows are the server's state.
A lost answer is learned from the write's token, or by reading the item back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.aws import client, current_deadline, deadline_scope, seconds_to_aws_deadline
from aws_data_mcp.config import Settings
from aws_data_mcp.workflows.model import Workflow
from aws_data_mcp.workflows.store import Unsettled, Written

_CONDITION_FAILED = "ConditionalCheckFailedException"
SETTLE_SECONDS = 1.0
"""At most this much of a request's time is kept, when a write starts, for reading back what it did."""
SETTLE_SHARE = 0.25
"""...and at most this share of the time left, so a short budget still leaves its write most of it."""
_sent: ContextVar[list[bool] | None] = ContextVar("aws_data_mcp_workflow_write_sent", default=None)


def _mark_sent(**_: Any) -> None:
    """`before-send` of PutItem, first: an attempt is going out (unless the deadline stops it right after, as
    `aws._bound_by_deadline` does), so from now on the write may land."""
    holder = _sent.get()
    left = seconds_to_aws_deadline()
    if holder is not None and (left is None or left > 0):
        holder[0] = True


@contextmanager
def _write_window() -> Iterator[list[bool]]:
    """While a write's attempts run: whether one went out, and a deadline that leaves time to read back after it."""
    holder = [False]
    token = _sent.set(holder)
    deadline, left = current_deadline(), seconds_to_aws_deadline()
    try:
        if deadline is None or left is None:
            yield holder
        else:
            with deadline_scope(deadline - min(SETTLE_SECONDS, left * SETTLE_SHARE)):
                yield holder
    finally:
        _sent.reset(token)


def _may_have_landed(exc: BaseException) -> bool:
    """After an attempt went out: whether `exc` leaves its write's outcome open. A 4xx on the only attempt is
    DynamoDB refusing it (nothing written); anything else (a timeout, a dropped connection, a 5xx, or any answer
    after a retry, whose earlier attempt may have landed) is open."""
    if isinstance(exc, ClientError):
        metadata = exc.response.get("ResponseMetadata", {})
        return metadata.get("HTTPStatusCode", 500) >= 500 or metadata.get("RetryAttempts", 0) > 0
    return isinstance(exc, BotoCoreError)


def _key(owner: str, workflow_id: str) -> dict[str, Any]:
    return {"pk": {"S": owner}, "sk": {"S": workflow_id}}


def _workflow(item: dict[str, Any] | None) -> Workflow | None:
    return Workflow.from_json(item["body"]["S"]) if item else None


class DynamoDbStore:
    def __init__(self, settings: Settings, session: boto3.Session | None = None) -> None:
        self.location = settings.workflow_table
        self._settings = settings
        self._session = session

    @property
    def session(self) -> boto3.Session:
        """The function's own credentials, resolved on first use (after any SnapStart restore)."""
        if self._session is None:
            self._session = boto3.Session()
        return self._session

    @property
    def _client(self) -> Any:
        found = client(self.session, "dynamodb", self._settings)
        found.meta.events.register_first("before-send.dynamodb.PutItem", _mark_sent,
                                         unique_id="aws-data-mcp-workflow-sent")  # once per client: by its id
        return found

    def _item(self, workflow: Workflow) -> dict[str, Any]:
        item: dict[str, Any] = {**_key(workflow.owner, workflow.id), "version": {"N": str(workflow.version)},
                                "updated_at": {"S": workflow.updated_at}, "body": {"S": workflow.to_json()}}
        if workflow.finished:
            expires = int(time.time()) + self._settings.workflow_retention_days * 86_400
            item["expires_at"] = {"N": str(expires)}
        return item

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        answer = self._client.get_item(TableName=self.location, Key=_key(owner, workflow_id), ConsistentRead=True,
                                       ProjectionExpression="body")
        return _workflow(answer.get("Item"))

    def list(self, owner: str) -> list[Workflow]:
        pages = self._client.get_paginator("query").paginate(
            TableName=self.location, KeyConditionExpression="pk = :owner",
            ExpressionAttributeValues={":owner": {"S": owner}}, ProjectionExpression="body", ConsistentRead=True)
        workflows = [Workflow.from_json(item["body"]["S"]) for page in pages for item in page.get("Items", [])]
        return sorted(workflows, key=lambda w: w.updated_at, reverse=True)

    def create(self, workflow: Workflow) -> Written:
        return self._put(workflow, "attribute_not_exists(pk)", {}, 0)

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        """The whole item is written again, so a workflow reopened after finishing loses its TTL."""
        return self._put(workflow, "version = :expected", {":expected": {"N": str(expected_version)}},
                         expected_version)

    def _put(self, workflow: Workflow, condition: str, values: dict[str, Any], expected: int) -> Written:
        """The conditional write, and what the table holds after it (see the module's docstring)."""
        with _write_window() as sent:
            try:
                self._client.put_item(TableName=self.location, Item=self._item(workflow),
                                      ConditionExpression=condition, ReturnValuesOnConditionCheckFailure="ALL_OLD",
                                      **({"ExpressionAttributeValues": values} if values else {}))
                return Written(workflow)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") == _CONDITION_FAILED:
                    retried = exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0) > 0
                    return Written(_workflow(exc.response.get("Item")), answer_lost=retried)
                if not (sent[0] and _may_have_landed(exc)):
                    raise
            except BotoCoreError as exc:
                if not (sent[0] and _may_have_landed(exc)):
                    raise
        try:  # the answer was lost: the item, read consistently, says whether this write's token is in it
            return Written(self.get(workflow.owner, workflow.id), answer_lost=True)
        except (BotoCoreError, ClientError) as exc:
            raise Unsettled(workflow, expected) from exc

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        answer = self._client.delete_item(TableName=self.location, Key=_key(owner, workflow_id),
                                          ReturnValues="ALL_OLD")
        return _workflow(answer.get("Attributes"))
