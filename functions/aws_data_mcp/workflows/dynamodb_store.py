"""Workflows in the stack's DynamoDB table (Lambda, and the demo's emulated account).

Keys: pk = the owner's digest, sk = the workflow id, so a caller's query can only ever
see its own items. Every write is conditional (new item, or the version it read), and a
finished workflow gets a TTL. The function's own credentials are used here, and for this
table only: workflows are the server's state about a caller, not caller data in AWS.
"""

from __future__ import annotations

import time
from typing import Any

import boto3
from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client_config
from aws_data_mcp.config import Settings
from aws_data_mcp.workflows.model import Workflow

_CONDITION_FAILED = "ConditionalCheckFailedException"


class DynamoDbStore:
    def __init__(self, settings: Settings, session: boto3.Session | None = None) -> None:
        self.location = settings.workflow_table
        self._settings = settings
        self._session = session
        self._table: Any = None

    @property
    def table(self) -> Any:
        if self._table is None:  # created on first use, after any SnapStart restore
            session = self._session or boto3.Session()
            resource = session.resource("dynamodb", region_name=session.region_name or self._settings.region,
                                        config=client_config(self._settings))
            self._table = resource.Table(self.location)
        return self._table

    def _item(self, workflow: Workflow) -> dict[str, Any]:
        item: dict[str, Any] = {"pk": workflow.owner, "sk": workflow.id, "version": workflow.version,
                                "updated_at": workflow.updated_at, "body": workflow.to_json()}
        if workflow.finished:
            item["expires_at"] = int(time.time()) + self._settings.workflow_retention_days * 86_400
        return item

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        item = self.table.get_item(Key={"pk": owner, "sk": workflow_id}, ConsistentRead=True).get("Item")
        return Workflow.from_json(item["body"]) if item else None

    def list(self, owner: str) -> list[Workflow]:
        # The table's client converts Python values both ways, as the Table methods do.
        pages = self.table.meta.client.get_paginator("query").paginate(
            TableName=self.location, KeyConditionExpression="pk = :owner", ExpressionAttributeValues={":owner": owner},
            ProjectionExpression="body", ConsistentRead=True)
        workflows = [Workflow.from_json(item["body"]) for page in pages for item in page.get("Items", [])]
        return sorted(workflows, key=lambda w: w.updated_at, reverse=True)

    def create(self, workflow: Workflow) -> None:
        self.table.put_item(Item=self._item(workflow), ConditionExpression=Attr("pk").not_exists())

    def replace(self, workflow: Workflow, expected_version: int) -> bool:
        try:
            self.table.put_item(Item=self._item(workflow), ConditionExpression=Attr("version").eq(expected_version))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == _CONDITION_FAILED:
                return False
            raise
        return True

    def delete(self, owner: str, workflow_id: str) -> bool:
        try:
            self.table.delete_item(Key={"pk": owner, "sk": workflow_id}, ConditionExpression=Attr("pk").exists())
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == _CONDITION_FAILED:
                return False
            raise
        return True
