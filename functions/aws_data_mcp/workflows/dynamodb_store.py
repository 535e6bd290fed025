"""Workflows in the stack's DynamoDB table (Lambda, and the demo's emulated account).

Keys: pk = the owner's digest, sk = the workflow id, so a caller's query can only ever
see its own items. Every write is conditional (new item, or the version it read), and a
finished workflow gets a TTL. The function's own credentials are used here, and for this
table only: workflows are the server's state about a caller, not caller data in AWS.

The client is `aws.client`'s, so every call, retries included, stops at the request's deadline
(`aws.deadline_scope`) exactly as the resource reads do. It speaks DynamoDB's wire types directly:
the item is five strings and numbers, which is shorter to write than to convert.
"""

from __future__ import annotations

import time
from typing import Any

import boto3
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.config import Settings
from aws_data_mcp.workflows.model import Workflow

_CONDITION_FAILED = "ConditionalCheckFailedException"


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
        return client(self.session, "dynamodb", self._settings)

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

    def create(self, workflow: Workflow) -> None:
        self._client.put_item(TableName=self.location, Item=self._item(workflow),
                              ConditionExpression="attribute_not_exists(pk)")

    def replace(self, workflow: Workflow, expected_version: int) -> bool:
        """The whole item is written again, so a workflow reopened after finishing loses its TTL."""
        try:
            self._client.put_item(TableName=self.location, Item=self._item(workflow),
                                  ConditionExpression="version = :expected",
                                  ExpressionAttributeValues={":expected": {"N": str(expected_version)}})
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == _CONDITION_FAILED:
                return False
            raise
        return True

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        answer = self._client.delete_item(TableName=self.location, Key=_key(owner, workflow_id),
                                          ReturnValues="ALL_OLD")
        return _workflow(answer.get("Attributes"))
