"""The sign-in functions' Lambda entries: an HTTP API (payload 2.0) event in, OAuth's answer out.

`register_handler` serves RFC 7591 registration, `facade_handler` the facade's four routes.
The MCP URL is this API's as the request names it (domain and stage), as the MCP function derives it.
The Cognito client is made at the first request, not at init; bodies are bounded before decoding.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from functools import cache
from typing import Any
from urllib.parse import parse_qs

import boto3

from aws_data_mcp.sign_in.facade import Facade, FacadePolicy, Reply
from aws_data_mcp.sign_in.registration import MAX_BODY_BYTES, MCP_PATH, Answer, RegistrationPolicy, register

_JSON = {"content-type": "application/json", "cache-control": "no-store"}
logger = logging.getLogger("aws_data_mcp.registration")
logger.setLevel(logging.INFO)


@cache
def cognito_client() -> Any:
    return boto3.client("cognito-idp")


@cache
def policy() -> RegistrationPolicy:
    return RegistrationPolicy.from_env()


def _response(answer: Answer) -> dict[str, Any]:
    # Who registered what, for the operator: the outcome, the client id and its redirect URIs, never the body.
    logged = {"registration": answer.status, **{key: answer.body.get(key) for key in
                                                ("error", "client_id", "redirect_uris")}}
    logger.info(json.dumps(logged))
    return {"statusCode": answer.status, "headers": _JSON, "isBase64Encoded": False, "body": json.dumps(answer.body)}


def _body(event: dict[str, Any]) -> bytes | None:
    raw = event.get("body") or ""
    if not isinstance(raw, str) or len(raw) > 2 * MAX_BODY_BYTES:  # base64 is 4/3 of the bytes
        return None
    if not event.get("isBase64Encoded"):
        return raw.encode()
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None


def _api_url(event: dict[str, Any]) -> str | None:
    """This API as the client reached it, the issuer its metadata names: `https://<domain>[/<stage>]`."""
    context = event.get("requestContext")
    domain, stage = (context.get("domainName"), context.get("stage")) if isinstance(context, dict) else (None, None)
    if not isinstance(domain, str) or not domain or not isinstance(stage, str):
        return None
    return f"https://{domain}{'' if stage == '$default' else '/' + stage}"


def _mcp_url(event: dict[str, Any]) -> str | None:
    api_url = _api_url(event)
    return None if api_url is None else api_url + MCP_PATH


def register_handler(event: Any, context: Any) -> dict[str, Any]:
    """POST /register."""
    body = _body(event) if isinstance(event, dict) else None
    mcp_url = _mcp_url(event) if isinstance(event, dict) else None
    if body is None or mcp_url is None:
        return _response(Answer(400, {"error": "invalid_client_metadata",
                                      "error_description": f"the body must be JSON client metadata of at most "
                                                           f"{MAX_BODY_BYTES} bytes"}))
    return _response(register(body, policy(), cognito_client(), mcp_url))


@cache
def facade() -> Facade:
    return Facade(FacadePolicy.from_env(), cognito_client())


def _reply(route: str, reply: Reply, client_id: str | None) -> dict[str, Any]:
    # The outcome and the client, never a code, a token or the body Cognito answered.
    error = json.loads(reply.body).get("error") if reply.status >= 400 and reply.body.startswith("{") else None
    logger.info(json.dumps({"sign_in": route, "status": reply.status, "client_id": client_id, "error": error}))
    return {"statusCode": reply.status, "headers": dict(reply.headers), "isBase64Encoded": False,
            "body": reply.body}


def facade_handler(event: Any, context: Any) -> dict[str, Any]:
    """GET /authorize, GET /callback, POST /token and POST /revoke (HTTP API, payload 2.0)."""
    event = event if isinstance(event, dict) else {}
    route, api_url = str(event.get("routeKey", "")), _api_url(event)
    query = str(event.get("rawQueryString") or "")
    if api_url is None:
        return _reply(route, Reply.error(400, "invalid_request", "not a request through this API"), None)
    if route == "GET /authorize":
        return _reply(route, facade().authorize(query, api_url), parse_qs(query).get("client_id", [None])[0])
    if route == "GET /callback":
        return _reply(route, facade().callback(query, api_url), None)
    body = _body(event)
    if route not in ("POST /token", "POST /revoke") or body is None:
        return _reply(route, Reply.error(400, "invalid_request", "no such sign-in endpoint, or no form body"),
                      None)
    return _reply(route, facade().token(body, api_url, route.removeprefix("POST /")), None)
