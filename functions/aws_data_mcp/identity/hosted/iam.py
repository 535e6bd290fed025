"""The iam mode's claim: the caller API Gateway's AWS_IAM authorizer named in requestContext.

An assumed-role caller is assumed into that same role. Others go through the role map.
Whoever assumes a role names the session, unless the role's trust pins the name.
So a session counts as a person only in PINNED_SESSION_ROLES (docs/auth.md, iam mode).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

import botocore.session

from aws_data_mcp.config import Settings, session_name_pinned
from aws_data_mcp.identity.hosted.claim import Claim, json_object, refuse, sts_name

_ASSUMED_ROLE = re.compile(r"arn:(?P<partition>[\w-]+):sts::(?P<account>\d{12}):assumed-role/(?P<role>[\w+=,.@-]+)"
                           r"/(?P<session>[\w+=,.@-]+)", re.ASCII)
_ROLE_WITH_PATH = re.compile(r"(?P<prefix>arn:[\w-]+:iam::\d{12}:role/)(?:[\w+=,.@-]+/)+(?P<name>[\w+=,.@-]+)",
                             re.ASCII)


@cache
def _own_partition(region: str) -> str:
    """The partition the function runs in (from its own region, never from a caller's ARN)."""
    return botocore.session.get_session().get_partition_for_region(region)


def _without_path(arn: str) -> str:
    """A role ARN as a session ARN names it: a session of role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_X
    is assumed-role/AWSReservedSSO_X/<session> (a role's name is unique in its account, whatever its path)."""
    match = _ROLE_WITH_PATH.fullmatch(arn)
    return match["prefix"] + match["name"] if match else arn


def _mapped(settings: Settings, *principals: str) -> str | None:
    """The role configured for the first of `principals` that PrincipalRoleMap names (a role's key with or without
    its path, as the operator copied it from IAM)."""
    mapping: dict[str, str] = {}
    for key, role in settings.principal_role_map:
        mapping.setdefault(_without_path(key), role)  # first entry wins, as documented
    return next((mapping[p] for p in principals if p in mapping), None)


def claim_iam(context: Mapping[str, Any], settings: Settings) -> Claim:
    """The caller's ARN from the IAM authorizer (HTTP API 2.0) or the request identity (REST v1)."""
    iam = json_object(json_object(context.get("authorizer")).get("iam"))
    arn = iam.get("userArn") or json_object(context.get("identity")).get("userArn")
    if not isinstance(arn, str) or not arn.startswith("arn:"):
        raise refuse("API Gateway named no IAM caller (is the route's authorization AWS_IAM?)")
    assumed = _ASSUMED_ROLE.fullmatch(arn)
    if assumed:
        partition = _own_partition(settings.region)
        if assumed["partition"] != partition:
            raise refuse(f"{arn} is a session of another partition than this deployment's ({partition})")
        own_role = f"arn:{partition}:iam::{assumed['account']}:role/{assumed['role']}"
        pinned = session_name_pinned(settings, assumed["role"])
        session = sts_name(assumed["session"])
        mapped = _mapped(settings, arn, own_role) if pinned else _mapped(settings, own_role)
        return Claim(principal=arn, role_arn=mapped or own_role, session_name=session,
                     source_identity=session if pinned else None, session_pinned=pinned,
                     owner=arn if pinned else own_role)
    role = _mapped(settings, arn)
    if role is None:
        raise refuse(f"{arn} is not an assumed role, and no role is configured for it",
                     "Connect with credentials of an IAM role (e.g. through aws sso login or a role profile), or "
                     "ask the operator to map this principal in AWS_DATA_MCP_PRINCIPAL_ROLE_MAP.")
    name = sts_name(arn.rsplit("/", 1)[-1])  # an IAM user's name is AWS's, not the caller's choice
    return Claim(principal=arn, role_arn=role, session_name=name, source_identity=name, session_pinned=True,
                 owner=arn)
