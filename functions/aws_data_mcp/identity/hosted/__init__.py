"""Hosted callers: who API Gateway vouches for, exchanged with STS for credentials that act as exactly them.

- `iam`: API Gateway's AWS_IAM authorizer verified the SigV4 signature and names the
  caller's ARN in requestContext. An assumed-role caller is assumed into *that same role*,
  so the function acts with exactly the role's permissions; its session name counts as a
  person (SourceIdentity, workflows of its own) only where the role's trust pins it. IAM
  users act through a configured principal-to-role map, or are refused.
- `oidc`: API Gateway's JWT authorizer validated the bearer token (issuer, audience,
  expiry); the token, issued for this server, is exchanged with AssumeRoleWithWebIdentity
  for the role its role tag (or subject) maps to, which each role's trust checks again
  (`trust`). A token exchange, not a passthrough.

One module a step: `iam` and `oidc` read each mode's `claim` from the request, `exchange` trades
it with STS (and caches the caller it gets), `refusals` tells the caller what to fix when STS will not,
and `trust` writes the trust statements that make AWS enforce what the function chose.

Identity comes only from requestContext (and, in oidc, the bearer token that the
authorizer validated); never from other client-set headers. The STS calls are the only
ones made with the function's own credentials, and those credentials never leave this
package. Exchanged credentials are cached per caller until a minute before they (or the
token) expire.

What requestContext is worth: API Gateway writes it, but anyone allowed
`lambda:InvokeFunction` on the function can invoke it directly with a requestContext of
their own, naming any caller, this API's id and its stage (both are in every URL). The
function cannot tell such an event from API Gateway's; the defence is who may invoke it
(its resource policy admits only this API; no identity policy should grant the action).
The API id and stage checks below only refuse events meant for somewhere else.
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
