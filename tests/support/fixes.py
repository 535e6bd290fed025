"""An explainer's fix (permissions://tables, permissions://buckets) applied as printed, by an administrator: the
structured fix put with boto3, as its `command` would put it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from aws_data_mcp.explainer.model import principal_kind


def apply_fix(fix: dict[str, Any], client: Callable[[str], Any]) -> None:
    """Apply `fix` with the administrator's clients (`client(service)`)."""
    assert fix["apply_by"] == "administrator" and fix["command"].startswith("aws "), fix
    if fix["kind"] in ("identity_policy", "group_policy", "permissions_boundary") and "policy" in fix:
        # an identity policy, its Deny taken out or narrowed: the caller's own, a group's, or the boundary
        document = json.dumps(fix["policy"])
        if fix["policy_name"].startswith("arn:"):
            client("iam").create_policy_version(PolicyArn=fix["policy_name"], PolicyDocument=document,
                                                SetAsDefault=True)
        elif fix["kind"] == "group_policy":
            assert "put-group-policy" in fix["command"], fix
            client("iam").put_group_policy(GroupName=fix["target"].rsplit("/", 1)[-1], PolicyName=fix["policy_name"],
                                           PolicyDocument=document)
        else:
            kind, name = principal_kind(fix["target"])
            put = client("iam").put_user_policy if kind == "user" else client("iam").put_role_policy
            put(**{f"{kind.capitalize()}Name": name}, PolicyName=fix["policy_name"], PolicyDocument=document)
    elif fix["kind"] == "identity_policy":
        kind, name = principal_kind(fix["target"])
        assert json.dumps(fix["statement"], separators=(",", ":")) in fix["command"], fix
        document = json.dumps({"Version": "2012-10-17", "Statement": [fix["statement"]]})
        put = client("iam").put_user_policy if kind == "user" else client("iam").put_role_policy
        put(**{f"{kind.capitalize()}Name": name}, PolicyName=f"fix-{time.monotonic_ns()}", PolicyDocument=document)
    elif fix["kind"] == "bucket_policy":
        client("s3").put_bucket_policy(Bucket=fix["target"], Policy=json.dumps(fix["policy"]))
    elif fix["kind"] == "key_policy":
        client("kms").put_key_policy(KeyId=fix["target"], PolicyName="default", Policy=json.dumps(fix["policy"]))
    elif fix["kind"] == "workgroup":
        assert "update-work-group" in fix["command"], fix
        client("athena").update_work_group(**fix["request"])
    else:
        assert fix["kind"] == "lake_formation_grant" and "grant-permissions" in fix["command"], fix
        client("lakeformation").grant_permissions(**fix["request"])
