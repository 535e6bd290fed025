"""Demo callers for the hosted path: one function identity and three callers with different rights.

The function, an IAM user standing in for the function role, may only assume the demo roles. Each
caller is a role whose trust policy allows it. In iam mode a caller signs with its own role session,
as after `aws sso login`. In oidc mode the demo issuer's tokens carry each caller's role tag. The
function's role map reads that tag. Each role's trust checks it again, as the README recommends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from moto.iam.models import iam_backends
from moto.utilities.utils import get_partition

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.trust import TAGS_CLAIM, iam_trust, oidc_trust
from aws_data_mcp_demo.account.s3_tables import reader_policy
from aws_data_mcp_demo.account.seed_data import (
    ADMIN_ROLE,
    ANALYST_ROLE,
    BUCKET_CURATED,
    BUCKET_RESULTS,
    CONTRACTOR_ROLE,
    DENIED_WORKGROUP,
    caller_read_policy,
    caller_restrictions_policy,
    explain_own_access_statement,
    workflow_table_statement,
)

FUNCTION_USER = "aws-data-mcp-function"


DEMO_PROVIDER = "demo"
"""The emulated account's OIDC provider (oidc-provider/demo): the prefix of its condition keys."""
DEMO_AUDIENCE = "aws-data-mcp"
ROLE_TAG = "aws-data-mcp-role"
"""The principal tag that selects a caller's role (the function's AWS_DATA_MCP_OIDC_ROLE_TAG default)."""


@dataclass(frozen=True)
class DemoCaller:
    name: str
    """The person (session name in iam mode, token subject in oidc mode)."""
    role: str
    group: str
    """Their group at the identity provider: the value of the role tag their tokens carry (oidc)."""
    rights: str


CALLERS = (
    DemoCaller("alice", ANALYST_ROLE, "analysts",
               "reads the data estate and IAM; one workgroup and two buckets denied"),
    DemoCaller("bob", ADMIN_ROLE, "admins", "the same reads as alice, nothing denied by IAM"),
    DemoCaller("carol", CONTRACTOR_ROLE, "contractors",
               f"one bucket ({BUCKET_CURATED}), the catalog, and queries in the partners workgroup"),
)


def identity_claims(caller: DemoCaller) -> dict[str, Any]:
    """What the demo identity provider vouches for about `caller`: their subject, groups and role tag, which STS
    makes a session tag (https://aws.amazon.com/tags) that each role's trust checks."""
    return {"sub": caller.name, "groups": [caller.group],
            TAGS_CLAIM: {"principal_tags": {ROLE_TAG: [caller.group]}}}


def oidc_settings(roles: Mapping[str, str]) -> Settings:
    """The function's oidc role map over the demo roles (role name -> ARN): each caller's group to their role."""
    return Settings(auth_mode="oidc", oidc_role_arn=roles["demo-analyst-role"], oidc_role_tag=ROLE_TAG,
                    oidc_role_map=tuple((caller.group, roles[caller.role]) for caller in CALLERS))


def _role_arns(account_id: str) -> dict[str, str]:
    return {role: f"arn:aws:iam::{account_id}:role/{role}" for role in {caller.role for caller in CALLERS}}


def _trust(role_arn: str, settings: Settings, function_arn: str) -> str:
    """The function may assume the role (iam); a token of the demo provider only when its role tag maps here."""
    statements = [iam_trust(replace(settings, function_role_arn=function_arn)),
                  *oidc_trust(settings, role_arn, DEMO_PROVIDER, DEMO_AUDIENCE)]
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def _contractor_policy(account_id: str, region: str) -> str:
    workgroups = [f"arn:aws:athena:{region}:{account_id}:workgroup/{name}" for name in ("partners", DENIED_WORKGROUP)]
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListAllMyBuckets", "sts:GetCallerIdentity"], "Resource": "*"},
        {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation", "s3:GetObject"],
         "Resource": [f"arn:aws:s3:::{BUCKET_CURATED}", f"arn:aws:s3:::{BUCKET_CURATED}/*"]},
        {"Sid": "ReadTheCatalog", "Effect": "Allow", "Resource": "*", "Action": [
            "glue:GetDatabase", "glue:GetDatabases", "glue:GetTable", "glue:GetTables", "glue:GetPartition",
            "glue:GetPartitions"]},  # no lakeformation:GetDataAccess: LF's grants alone cannot serve carol
        {"Sid": "QueryInTheirWorkgroups", "Effect": "Allow", "Resource": workgroups, "Action": [
            "athena:GetWorkGroup", "athena:StartQueryExecution", "athena:StopQueryExecution",
            "athena:GetQueryExecution", "athena:GetQueryResults", "athena:ListQueryExecutions"]},
        {"Sid": "WritePartnerResults", "Effect": "Allow", "Action": ["s3:PutObject", "s3:AbortMultipartUpload"],
         "Resource": f"arn:aws:s3:::{BUCKET_RESULTS}/partners/*"},
        {"Sid": "ReadPartnerResults", "Effect": "Allow", "Action": "s3:GetObject",
         "Resource": f"arn:aws:s3:::{BUCKET_RESULTS}/partners/*"},
        {"Sid": "ReadTheirBucketsPolicies", "Effect": "Allow",
         "Action": ["s3:GetBucketPolicy", "s3:GetEncryptionConfiguration"],
         "Resource": [f"arn:aws:s3:::{BUCKET_CURATED}", f"arn:aws:s3:::{BUCKET_RESULTS}"]},
        {"Sid": "SimulateTheirOwnRole", "Effect": "Allow", "Action": "iam:SimulatePrincipalPolicy",
         "Resource": f"arn:aws:iam::{account_id}:role/{CONTRACTOR_ROLE}"},
        explain_own_access_statement()]})


def seed_hosted_callers(iam: Any, account_id: str, region: str) -> dict[str, str]:
    """The roles and the function identity; returns role name -> ARN. Run before IAM is enforced."""
    function_arn = f"arn:aws:iam::{account_id}:user/{FUNCTION_USER}"
    settings = oidc_settings(_role_arns(account_id))
    policies = {ANALYST_ROLE: [caller_read_policy(), caller_restrictions_policy(account_id, region),
                               reader_policy(region, account_id)],
                ADMIN_ROLE: [caller_read_policy(), reader_policy(region, account_id, data=False)],
                CONTRACTOR_ROLE: [_contractor_policy(account_id, region)]}
    arns = {}
    for role, documents in policies.items():
        trust = _trust(_role_arns(account_id)[role], settings, function_arn)
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
