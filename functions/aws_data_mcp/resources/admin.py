"""admin://: IAM users and roles, SSO and identity providers, and the server's table-query set-up.

"admin" means these need IAM read rights of the caller's own: there is no other gate,
so a caller without them gets `access_denied` naming the action, like any AWS refusal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any, NotRequired, TypedDict
from urllib.parse import unquote

from aws_data_mcp.explainer.policy_grammar import listed
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, attempt, iso, value_or_error
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import glue_databases
from aws_data_mcp.resources.athena.workgroups import query_workgroup

KEY_ID_SHOWN = 4
"""Only the last characters of an access key id are shown: enough to match a key, not to hand one out."""


# --------------------------------------------------------------------------- users

class AccessKey(TypedDict):
    key_id_suffix: str
    status: str | None
    created: str | None
    last_used: str | None
    last_used_service: str | None
    last_used_region: str | None
    error: NotRequired[ItemError]
    """Why its last use could not be read (the key itself was listed)."""


class User(TypedDict):
    name: str
    arn: str
    id: str | None
    created: str | None
    password_last_used: str | None
    groups: list[str] | None
    """None when they could not be read (see `errors`)."""
    access_keys: list[AccessKey] | None
    """None when they could not be listed (see `errors`)."""
    errors: NotRequired[list[ItemError]]
    """One per part that could not be read, each naming its IAM action; the other part still answers."""


class Users(TypedDict):
    count: int
    users: list[User]


def _groups(iam: Any, name: str) -> list[str]:
    return [g["GroupName"] for page in iam.get_paginator("list_groups_for_user").paginate(UserName=name)
            for g in page.get("Groups", [])]


def _keys(iam: Any, name: str) -> list[dict[str, Any]]:
    return [key for page in iam.get_paginator("list_access_keys").paginate(UserName=name)
            for key in page.get("AccessKeyMetadata", [])]


def _access_key(key: Mapping[str, Any], last_use: Outcome[Any, dict[str, Any]]) -> AccessKey:
    used = (last_use.value or {}).get("AccessKeyLastUsed") or {}
    entry = AccessKey(key_id_suffix=key["AccessKeyId"][-KEY_ID_SHOWN:], status=key.get("Status"),
                      created=iso(key.get("CreateDate")), last_used=iso(used.get("LastUsedDate")),
                      last_used_service=used.get("ServiceName"), last_used_region=used.get("Region"))
    if last_use.error is not None:
        entry["error"] = last_use.error.brief()  # type: ignore[typeddict-item]
    return entry


def _user(user: Mapping[str, Any], groups: Outcome[Any, list[str]], keys: Outcome[Any, list[dict[str, Any]]],
          last_uses: Mapping[str, Outcome[Any, dict[str, Any]]]) -> User:
    entry = User(name=user["UserName"], arn=user["Arn"], id=user.get("UserId"), created=iso(user.get("CreateDate")),
                 password_last_used=iso(user.get("PasswordLastUsed")), groups=groups.value,
                 access_keys=None if keys.value is None else
                 [_access_key(key, last_uses[key["AccessKeyId"]]) for key in keys.value])
    errors = [o.error.brief() for o in (groups, keys) if o.error is not None]
    if errors:
        entry["errors"] = errors  # type: ignore[typeddict-item]
    return entry


@registry.resource(
    "admin://users",
    name="iam-users",
    title="IAM users",
    description="IAM users with creation date, password last used, groups and access keys (last 4 characters "
    "of the id, status, last use); a user whose details are denied is kept with its error.",
    requires="admin",
    aws_calls=["iam:ListUsers", "iam:ListGroupsForUser", "iam:ListAccessKeys", "iam:GetAccessKeyLastUsed"],
    list_field="users",
)
def users(request: ResourceRequest) -> Users:
    """Three waves: ListUsers (all pages); every user's groups and access keys, side by side in one fan-out;
    every key's last use, all users' keys in one fan-out. A part that fails leaves its error beside the user
    and the other part standing (keys denied, groups still shown)."""
    iam = request.client("iam")
    listed = [u for page in iam.get_paginator("list_users").paginate() for u in page.get("Users", [])]
    parts = request.fan_out(Call.run, [Call(action, partial(read, iam, user["UserName"])) for user in listed
                                       for action, read in (("iam:ListGroupsForUser", _groups),
                                                            ("iam:ListAccessKeys", _keys))], action=Call.action_of)
    groups, keys = parts[::2], parts[1::2]
    last_uses = {o.item["AccessKeyId"]: o for o in request.fan_out(
        lambda key: iam.get_access_key_last_used(AccessKeyId=key["AccessKeyId"]),
        [key for outcome in keys for key in outcome.value or []], action="iam:GetAccessKeyLastUsed")}
    entries = [_user(*part, last_uses) for part in zip(listed, groups, keys, strict=True)]
    return Users(count=len(entries), users=entries)


# --------------------------------------------------------------------------- roles

class TrustSummary(TypedDict):
    aws: list[str]
    service: list[str]
    federated: list[str]
    conditions: bool


class Role(TypedDict):
    name: str
    arn: str
    path: str | None
    description: str | None
    created: str | None
    max_session_seconds: int | None
    trusted: TrustSummary
    last_used: str | None
    last_used_region: str | None
    error: NotRequired[ItemError]


class Roles(TypedDict):
    count: int
    roles: list[Role]


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in listed(value) if v]


def trust_summary(document: Any) -> TrustSummary:
    """Who may assume the role, from its trust policy (a dict from boto3, or URL-encoded JSON as on the wire)."""
    if isinstance(document, str):
        document = json.loads(unquote(document))
    summary = TrustSummary(aws=[], service=[], federated=[], conditions=False)
    for statement in _as_list_of_dicts((document or {}).get("Statement")):
        if statement.get("Effect") != "Allow":
            continue
        principal = statement.get("Principal") or {}
        principal = {"AWS": principal} if isinstance(principal, str) else principal
        summary["aws"] += _as_list(principal.get("AWS"))
        summary["service"] += _as_list(principal.get("Service"))
        summary["federated"] += _as_list(principal.get("Federated"))
        summary["conditions"] = summary["conditions"] or bool(statement.get("Condition"))
    return TrustSummary(aws=sorted(set(summary["aws"])), service=sorted(set(summary["service"])),
                        federated=sorted(set(summary["federated"])), conditions=summary["conditions"])


def _as_list_of_dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in listed(value) if isinstance(v, Mapping)]


@registry.resource(
    "admin://roles",
    name="iam-roles",
    title="IAM roles",
    description="IAM roles with description, who may assume them (summarised from the trust policy), maximum "
    "session duration and when they were last used.",
    requires="admin",
    aws_calls=["iam:ListRoles", "iam:GetRole"],
    list_field="roles",
)
def roles(request: ResourceRequest) -> Roles:
    """ListRoles (all pages), then GetRole per role in parallel: only GetRole tells when a role was last used."""
    iam = request.client("iam")
    listed = [r for page in iam.get_paginator("list_roles").paginate() for r in page.get("Roles", [])]
    outcomes = request.fan_out(lambda r: iam.get_role(RoleName=r["RoleName"])["Role"], listed, action="iam:GetRole")
    entries: list[Role] = []
    for outcome in outcomes:
        role = outcome.item
        used = (outcome.value or {}).get("RoleLastUsed") or {}
        entry = Role(name=role["RoleName"], arn=role["Arn"], path=role.get("Path"),
                     description=role.get("Description"), created=iso(role.get("CreateDate")),
                     max_session_seconds=role.get("MaxSessionDuration"),
                     trusted=trust_summary(role.get("AssumeRolePolicyDocument")),
                     last_used=iso(used.get("LastUsedDate")), last_used_region=used.get("Region"))
        if outcome.error is not None:
            entry["error"] = outcome.error.brief()  # type: ignore[typeddict-item]
        entries.append(entry)
    return Roles(count=len(entries), roles=entries)


# --------------------------------------------------------------------------- SSO and identity providers

class SsoConfig(TypedDict):
    identity_center_region: str
    """The one region sso-admin ListInstances was asked: an Identity Center instance lives in one region, so an
    empty list says "none here", not "none"."""
    identity_center_instances: list[dict[str, Any]] | ItemError
    saml_providers: list[dict[str, Any]] | ItemError
    oidc_providers: list[dict[str, Any]] | ItemError


def _identity_center(sso_admin: Any) -> list[dict[str, Any]]:
    pages = sso_admin.get_paginator("list_instances").paginate()
    return [{"instance_arn": i.get("InstanceArn"), "identity_store_id": i.get("IdentityStoreId"),
             "name": i.get("Name"), "status": i.get("Status"), "created": iso(i.get("CreatedDate"))}
            for page in pages for i in page.get("Instances", [])]


def _saml(iam: Any) -> list[dict[str, Any]]:
    return [{"arn": p["Arn"], "name": p["Arn"].rsplit("/", 1)[-1], "created": iso(p.get("CreateDate")),
             "valid_until": iso(p.get("ValidUntil"))}
            for p in iam.list_saml_providers().get("SAMLProviderList", [])]


def _oidc(request: ResourceRequest, iam: Any) -> list[dict[str, Any]]:
    arns = [p["Arn"] for p in iam.list_open_id_connect_providers().get("OpenIDConnectProviderList", [])]
    providers = []
    for outcome in request.fan_out(lambda arn: iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn), arns,
                                   action="iam:GetOpenIDConnectProvider"):
        found = outcome.value or {}
        entry = {"arn": outcome.item, "url": found.get("Url"), "client_ids": found.get("ClientIDList", []),
                 "thumbprints": len(found.get("ThumbprintList", [])), "created": iso(found.get("CreateDate"))}
        if outcome.error is not None:
            entry["error"] = outcome.error.brief()
        providers.append(entry)
    return providers


@registry.resource(
    "admin://config/sso",
    name="sso-config",
    title="SSO and identity providers",
    description="IAM Identity Center instances, SAML providers and OIDC providers (URL, client ids); each part "
    "answers on its own, a denied one with its error.",
    requires="admin",
    aws_calls=["sso:ListInstances", "iam:ListSAMLProviders", "iam:ListOpenIDConnectProviders",
               "iam:GetOpenIDConnectProvider"],
)
def sso(request: ResourceRequest) -> SsoConfig:
    """The three parts side by side in one fan-out; each answers with its data or its own error."""
    iam, sso_admin = request.client("iam"), request.client("sso-admin")
    instances, saml, oidc = (value_or_error(o) for o in request.fan_out(
        Call.run, [Call("sso:ListInstances", partial(_identity_center, sso_admin)),
                   Call("iam:ListSAMLProviders", partial(_saml, iam)),
                   Call("iam:ListOpenIDConnectProviders", partial(_oidc, request, iam))], action=Call.action_of))
    return SsoConfig(identity_center_region=sso_admin.meta.region_name, identity_center_instances=instances,
                     saml_providers=saml, oidc_providers=oidc)


# --------------------------------------------------------------------------- the table-query set-up

class TabulatorConfig(TypedDict):
    workgroup: dict[str, Any]
    databases_in_scope: list[str] | ItemError
    databases_configured: bool
    open_query_enabled: bool
    """Whether `athena_query` runs SQL: the deployment allows at least one workgroup."""
    query_workgroups: list[str]


@registry.resource(
    "admin://config/tabulator",
    name="tabulator-config",
    title="Table query set-up",
    description="The set-up the server uses for table queries: its Athena workgroup with result location, "
    "enforcement and cutoff, the Glue databases in scope, and whether free-form queries are enabled.",
    requires="admin",
    aws_calls=["athena:GetWorkGroup", "glue:GetDatabases"],
)
def tabulator_config(request: ResourceRequest) -> TabulatorConfig:
    """The server's settings, with the workgroup as the caller sees it: a set-up that names a workgroup the caller
    cannot describe says so beside the name instead of failing the read."""
    settings = request.settings
    workgroup = query_workgroup(request.client("athena"), settings.default_workgroup)
    configured = list(settings.tabulator_databases)
    databases: list[str] | ItemError = configured or value_or_error(attempt(
        "glue:GetDatabases", lambda: sorted(d["Name"] for d in glue_databases(request.client("glue")))))
    return TabulatorConfig(workgroup=workgroup, databases_in_scope=databases,
                           databases_configured=bool(configured), open_query_enabled=bool(settings.query_workgroups),
                           query_workgroups=list(settings.query_workgroups))
