"""Hosted callers: who API Gateway vouches for, exchanged with STS to act as exactly them.

`iam` and `oidc` read each mode's `claim`. `exchange` trades it with STS and caches the caller.
`refusals` says what to fix when STS will not. `trust` writes the statements AWS enforces.
Identity comes only from requestContext: who may invoke the function is the boundary (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp.identity.hosted.claim import Headers, Refused, json_object, refuse
from aws_data_mcp.identity.hosted.exchange import caller_of
from aws_data_mcp.identity.hosted.iam import claim_iam
from aws_data_mcp.identity.hosted.oidc import claim_oidc


def _request_context(scope: Mapping[str, Any] | None, settings: Settings) -> tuple[Mapping[str, Any], Headers]:
    event = (scope or {}).get("aws.event")
    if not isinstance(event, Mapping) or not isinstance(event.get("requestContext"), Mapping):
        raise refuse("no API Gateway request context")
    context: Mapping[str, Any] = event["requestContext"]
    _check_origin(context, settings)
    headers = json_object(event.get("headers"))
    return context, {str(k).lower(): v for k, v in headers.items()}


def _check_origin(context: Mapping[str, Any], settings: Settings) -> None:
    """The event names this deployment's API and stage, or it is refused.

    This refuses events meant for somewhere else (another API or stage wired to the function by
    mistake, a test event replayed against production). It is no defence against a forged direct
    invoke: the API id and stage are public, so a forger writes the right ones. That defence is
    who may call lambda:InvokeFunction on the function (see the module docstring).
    """
    if settings.expected_api_id and context.get("apiId") != settings.expected_api_id:
        raise refuse("the request did not come through this deployment's API",
                     "Invoke the function only through its API Gateway URL.")
    if settings.expected_api_stage and context.get("stage") != settings.expected_api_stage:
        raise refuse("the request did not come through this deployment's API stage",
                     "Invoke the function only through its API Gateway URL (output McpUrl).")


def resolve(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """The hosted caller of one request, or an unauthenticated one that says why (and made no AWS data call)."""
    try:
        context, headers = _request_context(scope, settings)
        claim = claim_oidc(context, headers, settings) if settings.auth_mode == "oidc" else claim_iam(context, settings)
        return caller_of(claim, settings)
    except Refused as refused:
        return Caller(settings.auth_mode, None, settings.region, refused.failure.message, refusal=refused.failure)
