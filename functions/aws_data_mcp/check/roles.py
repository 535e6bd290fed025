"""The function's role and each caller role's trust, for the stack's auth mode.

What the function may do is IAM's simulator's answer for its own role (`sts:AssumeRole` on each caller role, iam
mode). A trust policy, though, is a resource policy whose principal is the function (or, oidc, a federated token):
IAM's simulator takes a resource policy only with an IAM user as caller, so a trust is read against the one statement
`identity.hosted.trust` says the role needs: the principal and action it must name, and in oidc the audience and role
selector it must check. A statement that admits the function only under other conditions is `unknown`, with the
command that settles it; it never counts as admitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

import boto3
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.check.findings import Finding
from aws_data_mcp.check.target import Target
from aws_data_mcp.explainer.policy_grammar import iam_like, listed
from aws_data_mcp.identity.hosted.trust import iam_trust, oidc_trust, provider_of, role_selector_key

TRUST = "caller role trust"


def _document(value: Any) -> Mapping[str, Any]:
    return json.loads(unquote(value)) if isinstance(value, str) else value


def _allows(statement: Mapping[str, Any], action: str) -> bool:
    return statement.get("Effect") == "Allow" and any(iam_like(a, action, case=False)
                                                      for a in listed(statement.get("Action")))


def _principals(statement: Mapping[str, Any], kind: str) -> list[str]:
    principal = statement.get("Principal")
    if principal == "*":
        return ["*"]
    return [str(p) for p in listed((principal or {}).get(kind))] if isinstance(principal, Mapping) else []


def _account_root(arn: str) -> str:
    parts = arn.split(":")
    return f"arn:{parts[1]}:iam::{parts[4]}:root" if len(parts) > 4 else ""


def _who_maps_to(target: Target, role: str) -> str:
    settings = target.settings
    if settings.auth_mode == "oidc":
        values = [value for value, arn in settings.oidc_role_map if arn == role]
        said = [f"tokens whose {'tag ' + settings.oidc_role_tag if settings.oidc_role_claim == 'tag' else 'subject'}"
                f" is {', '.join(values)}"] if values else []
        if role == settings.oidc_role_arn:
            said.append("every other token (the default role)")
        return "; ".join(said)
    principals = [principal for principal, arn in settings.principal_role_map if arn == role]
    return f"callers mapped to it: {', '.join(principals)}" if principals else "the sessions of this role"


def caller_roles(target: Target) -> list[str]:
    """The roles callers act as: the ones the settings map to, and those the operator named."""
    settings = target.settings
    mapped = ([settings.oidc_role_arn, *(arn for _, arn in settings.oidc_role_map)] if settings.auth_mode == "oidc"
              else [arn for _, arn in settings.principal_role_map])
    return list(dict.fromkeys(arn for arn in [*mapped, *target.caller_roles] if arn))


def _trust_of(iam: Any, role: str) -> Mapping[str, Any] | None:
    try:
        return _document(iam.get_role(RoleName=role.rsplit("/", 1)[-1])["Role"]["AssumeRolePolicyDocument"])
    except ClientError as error:
        if error.response["Error"]["Code"] == "NoSuchEntity":
            return None
        raise


def _iam_verdict(target: Target, role: str, trust: Mapping[str, Any]) -> Finding:
    function = target.settings.function_role_arn
    needed = json.dumps(iam_trust(target.settings))
    admitting = [s for s in listed(trust.get("Statement")) if _allows(s, "sts:AssumeRole")
                 and {function, _account_root(function), "*"} & set(_principals(s, "AWS"))]
    affected = _who_maps_to(target, role)
    if not admitting:
        return Finding(TRUST, role, "fail", f"the trust does not let the function's role ({function}) assume it: "
                       "its callers are refused", affected, f"add to the role's trust: {needed}")
    if all(s.get("Condition") for s in admitting):
        return Finding(TRUST, role, "unknown", "the trust admits the function's role only under conditions this "
                       "check does not evaluate", affected, f"settle: call sts:AssumeRole on {role} as {function}")
    return Finding(TRUST, role, "ok", f"the trust lets {function} assume it", affected)


def _condition_values(statement: Mapping[str, Any], key: str) -> list[str]:
    values: list[str] = []
    for operator, entries in (statement.get("Condition") or {}).items():
        if "Not" in operator or not isinstance(entries, Mapping):
            continue
        values += [str(v) for k, v in entries.items() for v in listed(v) if k.lower() == key.lower()]
    return values


def _oidc_verdict(target: Target, role: str, trust: Mapping[str, Any]) -> Finding:
    settings, issuer = target.settings, target.issuer or target.settings.oidc_issuer
    provider = provider_of(issuer)
    needed = json.dumps(oidc_trust(settings, role, issuer, target.audience))
    federated = [s for s in listed(trust.get("Statement")) if _allows(s, "sts:AssumeRoleWithWebIdentity")
                 and any(p.endswith(f":oidc-provider/{provider}") for p in _principals(s, "Federated"))]
    affected = _who_maps_to(target, role)
    if not federated:
        return Finding(TRUST, role, "fail", f"the trust admits no token of {provider}: its callers are refused",
                       affected, f"replace the role's federated statements with: {needed}")
    audiences = [value for s in federated for value in _condition_values(s, f"{provider}:aud")]
    wanted = target.audience.split(",") if target.audience else []
    if wanted and not any(iam_like(value, audience) for value in audiences for audience in wanted):
        return Finding(TRUST, role, "fail", f"the trust admits tokens for {', '.join(audiences) or 'no audience'}, "
                       f"the authorizer passes tokens for {target.audience}: every sign-in is refused at STS",
                       affected, f"replace the role's federated statements with: {needed}")
    if settings.oidc_role_claim == "tag" and not any(_allows(s, "sts:TagSession") for s in federated):
        return Finding(TRUST, role, "fail", "the trust lacks sts:TagSession, which a token carrying the role tag "
                       "needs", affected, f"replace the role's federated statements with: {needed}")
    selector = role_selector_key(settings, provider)
    mapped = [value for value, arn in settings.oidc_role_map if arn == role]
    checked = [value for s in federated for value in _condition_values(s, selector)]
    if mapped and not set(mapped) <= set(checked):
        return Finding(TRUST, role, "fail", f"the trust does not check {selector} for {', '.join(mapped)}, which the "
                       "role map sends here", affected, f"replace the role's federated statements with: {needed}")
    return Finding(TRUST, role, "ok", f"the trust admits tokens of {provider} for {target.audience or 'its audience'}",
                   affected)


def trust_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    """Each caller role: does it exist, and does its trust admit what the auth mode sends it."""
    iam = client(session, "iam", target.settings)
    for role in caller_roles(target):
        trust = _trust_of(iam, role)
        if trust is None:
            yield Finding(TRUST, role, "fail", "the role does not exist", _who_maps_to(target, role),
                          "create it, or correct the role map that names it")
        elif target.settings.auth_mode == "oidc":
            yield _oidc_verdict(target, role, trust)
        else:
            yield _iam_verdict(target, role, trust)


def function_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    """iam: may the function's role assume each caller role, by IAM's simulator over its own policies."""
    settings = target.settings
    roles = caller_roles(target)
    if settings.auth_mode != "iam" or not roles:
        return
    if not settings.function_role_arn:
        yield Finding("function role", "AWS_DATA_MCP_FUNCTION_ROLE_ARN", "unknown", "the function names no role of "
                      "its own, so what it may assume cannot be simulated", "every caller",
                      "set AWS_DATA_MCP_FUNCTION_ROLE_ARN (the template does)")
        return
    results = client(session, "iam", settings).simulate_principal_policy(
        PolicySourceArn=settings.function_role_arn, ActionNames=["sts:AssumeRole"], ResourceArns=roles)
    for result in results["EvaluationResults"]:
        role = result.get("EvalResourceName", "")
        if result["EvalDecision"] == "allowed":
            yield Finding("function role", role, "ok", f"{settings.function_role_arn} may assume it")
        else:
            yield Finding("function role", role, "fail", f"{settings.function_role_arn} may not assume it "
                          f"({result['EvalDecision']})", _who_maps_to(target, role),
                          "widen the stack's CallerRoleArnPattern to cover this role (or correct the map)")


def provider_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    """oidc: the IAM OIDC provider STS checks tokens against exists and lists the audience."""
    if target.settings.auth_mode != "oidc":
        return
    issuer = target.issuer or target.settings.oidc_issuer
    roles = caller_roles(target)
    if not issuer or not roles:
        return
    partition, account = roles[0].split(":")[1], roles[0].split(":")[4]
    arn = f"arn:{partition}:iam::{account}:oidc-provider/{provider_of(issuer)}"
    try:
        provider = client(session, "iam", target.settings).get_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    except ClientError as error:
        if error.response["Error"]["Code"] != "NoSuchEntity":
            raise
        yield Finding("oidc provider", arn, "fail", "IAM has no OIDC provider for the issuer: STS refuses every "
                      "token", "every caller", f"aws iam create-open-id-connect-provider --url {issuer} "
                      f"--client-id-list {target.audience or '<audience>'}")
        return
    clients = provider.get("ClientIDList", [])
    wanted = [a for a in target.audience.split(",") if a]
    if wanted and not set(wanted) & set(clients):
        yield Finding("oidc provider", arn, "fail", f"the provider accepts audiences {', '.join(clients)}, the "
                      f"authorizer passes tokens for {target.audience}", "every caller",
                      f"aws iam add-client-id-to-open-id-connect-provider --open-id-connect-provider-arn {arn} "
                      f"--client-id {wanted[0]}")
    else:
        yield Finding("oidc provider", arn, "ok", f"accepts {', '.join(clients)}")
