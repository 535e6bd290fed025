"""The registration function's Lambda entry: an API Gateway (HTTP API, payload 2.0) event in, RFC 7591 JSON out.

The MCP URL (the resource server's identifier, whose scope clients get) is this API's, as the request names it:
its domain and stage, the way the MCP function derives the URL it publishes in its metadata.

The Cognito client is made once per container, at the first request (no client in the module's init), and the
body is bounded before it is decoded: API Gateway passes bodies of up to 10 MB, registration metadata is tiny.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from functools import cache
from typing import Any

import boto3

from aws_data_mcp.sign_in.registration import MAX_BODY_BYTES, Answer, RegistrationPolicy, register

MCP_PATH = "/mcp"

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


def _mcp_url(event: dict[str, Any]) -> str | None:
    context = event.get("requestContext")
    domain, stage = (context.get("domainName"), context.get("stage")) if isinstance(context, dict) else (None, None)
    if not isinstance(domain, str) or not domain or not isinstance(stage, str):
        return None
    return f"https://{domain}{'' if stage == '$default' else '/' + stage}{MCP_PATH}"


def register_handler(event: Any, context: Any) -> dict[str, Any]:
    """POST /register."""
    body = _body(event) if isinstance(event, dict) else None
    mcp_url = _mcp_url(event) if isinstance(event, dict) else None
    if body is None or mcp_url is None:
        return _response(Answer(400, {"error": "invalid_client_metadata",
                                      "error_description": f"the body must be JSON client metadata of at most "
                                                           f"{MAX_BODY_BYTES} bytes"}))
    return _response(register(body, policy(), cognito_client(), mcp_url))
