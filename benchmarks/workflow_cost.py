"""A workflow update's cost with write tokens, beside the same update written without them, in the same table.

The tokens (`Workflow.writes`, 256 characters in every stored workflow) and `ReturnValuesOnConditionCheckFailure`
are what versioned writes added to every update; the baseline is the update as it was written before: read the item,
apply the change, one conditional PutItem of the item without tokens. Both run through botocore against moto in this
process (no network: the ratio is the worst case, since a real round trip would add the same time to both), on
workflows of the same steps, alternating in blocks.
"""

from __future__ import annotations

import copy
import os
from typing import Any

OWNER = "d" * 32
TABLE = "bench-workflows"
STEPS = 12
"""A plan of a dozen steps, each with a note: a typical workflow's size."""


def _setup() -> tuple[Any, Any, str, str]:
    import boto3

    from aws_data_mcp.config import Settings
    from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore
    from aws_data_mcp.workflows.service import Workflows

    boto3.client("dynamodb", region_name="us-east-1").create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
    store = DynamoDbStore(Settings(mode="local", workflow_table=TABLE), session=boto3.Session(region_name="us-east-1"))
    mine = Workflows(store, OWNER)
    titles = [f"step {n}: find, check and query the sales tables" for n in range(STEPS)]
    ours, bare = (mine.create(name, "a plan of a dozen steps", titles) for name in ("with tokens", "without"))
    for workflow in (ours, bare):
        for step in workflow.steps:
            mine.update_step(workflow.id, step.id, note="athena://databases/sales/tables/orders " * 3)
    return store, mine, ours.id, bare.id


def _tokenless_update(store: Any, workflow_id: str, note: str) -> None:
    """The update as written before tokens: get, apply, `_fits`, one conditional PutItem (no ALL_OLD)."""
    from aws_data_mcp.workflows.model import now
    from aws_data_mcp.workflows.service import _fits, _step, checked_id

    current = store.get(OWNER, checked_id(workflow_id))
    changed = copy.deepcopy(current)
    step = _step(changed, "s1")
    step.note, step.updated_at = note, now()
    changed.version, changed.updated_at, changed.writes = current.version + 1, now(), ""
    _fits(changed)
    store._client.put_item(TableName=TABLE, Item=store._item(changed), ConditionExpression="version = :expected",
                           ExpressionAttributeValues={":expected": {"N": str(current.version)}})


def measure(iterations: int) -> dict[str, Any]:
    """p50/p95 of one update each way, and the bytes each stores."""
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    from moto import mock_aws

    import harness

    counter = [0]

    def note() -> str:
        counter[0] += 1
        return f"checked {counter[0]} tables"

    with mock_aws():
        store, mine, ours, bare = _setup()
        latencies = harness.interleave({
            "tokens": lambda: mine.update_step(ours, "s1", note=note()),
            "tokenless": lambda: _tokenless_update(store, bare, note()),
        }, iterations=iterations, block=25, warmup=20)
        sizes = {"tokens": len(mine.get(ours).to_json()), "tokenless": len(mine.get(bare).to_json())}
    return {"latency_ms": harness.latencies_json(latencies), "stored_bytes": sizes, "steps": STEPS}
