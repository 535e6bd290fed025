"""Demo callers for the hosted path: one function identity and three callers with different rights.

The function (an IAM user standing in for the function role) may only assume the demo
roles; each caller is a role whose trust policy allows it. In iam mode each caller signs
with its own role session's credentials (as after `aws sso login`); in oidc mode the demo
issuer's tokens map to the roles through their `groups` claim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from moto.iam.models import iam_backends
from moto.utilities.utils import get_partition

from .seed_data import BUCKET_CURATED, caller_read_policy, caller_restrictions_policy, workflow_table_statement

FUNCTION_USER = "aws-data-mcp-function"


@dataclass(frozen=True)
class DemoCaller:
    name: str
    """The person (session name in iam mode, token subject in oidc mode)."""
    role: str
    group: str
    """The `groups` claim value their tokens carry (oidc)."""
    rights: str


CALLERS = (
    DemoCaller("alice", "demo-analyst-role", "analysts", "read rights, one workgroup and two buckets denied"),
    DemoCaller("bob", "demo-admin-role", "admins", "data estate and IAM read, nothing denied"),
    DemoCaller("carol", "demo-contractor-role", "contractors", f"one bucket ({BUCKET_CURATED}) and nothing else"),
)


def _contractor_policy() -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListAllMyBuckets", "sts:GetCallerIdentity"], "Resource": "*"},
        {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation", "s3:GetObject"],
         "Resource": [f"arn:aws:s3:::{BUCKET_CURATED}", f"arn:aws:s3:::{BUCKET_CURATED}/*"]}]})


def seed_hosted_callers(iam: Any, account_id: str, region: str) -> dict[str, str]:
    """The roles and the function identity; returns role name -> ARN. Run before IAM is enforced."""
    function_arn = f"arn:aws:iam::{account_id}:user/{FUNCTION_USER}"
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": function_arn},
         "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]},
        {"Effect": "Allow", "Principal": {"Federated": f"arn:aws:iam::{account_id}:oidc-provider/demo"},
         "Action": "sts:AssumeRoleWithWebIdentity"}]})
    policies = {"demo-analyst-role": [caller_read_policy(), caller_restrictions_policy(account_id, region)],
                "demo-admin-role": [caller_read_policy()], "demo-contractor-role": [_contractor_policy()]}
    arns = {}
    for role, documents in policies.items():
        arns[role] = iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust,
                                     Description=f"aws-data-mcp demo caller ({role})")["Role"]["Arn"]
        for index, document in enumerate(documents):
            iam.put_role_policy(RoleName=role, PolicyName=f"demo-{index}", PolicyDocument=document)
    iam.create_user(UserName=FUNCTION_USER)
    iam.put_user_policy(UserName=FUNCTION_USER, PolicyName="ActAsTheCallersRole", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Resource": f"arn:aws:iam::{account_id}:role/demo-*",
            "Action": ["sts:AssumeRole", "sts:AssumeRoleWithWebIdentity", "sts:SetSourceIdentity"]},
            workflow_table_statement(account_id, region)]}))
    return arns


def function_keys(account_id: str, region: str) -> tuple[str, str]:
    """Access keys for the function identity, issued by moto's backend directly (never through a logged API)."""
    key = iam_backends[account_id][get_partition(region)].create_access_key(user_name=FUNCTION_USER)
    return key.access_key_id, key.secret_access_key
