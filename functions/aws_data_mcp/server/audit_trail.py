"""The server middleware that writes one audit line per MCP request, on every transport (Lambda, local HTTP, stdio).

Why a middleware: the SDK runs it around every request, its validation and its error included, so a request the
SDK refuses (an unknown method, malformed params) is recorded as one the server refuses. The record itself, and
what the layers add to it while the call runs, is `aws_data_mcp.audit`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CLIENT_INFO_META_KEY, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND
from pydantic import BaseModel, ValidationError

from aws_data_mcp import audit
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ECHO_LIMIT, MESSAGE_LIMIT, echo
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.observability import bind_request
from aws_data_mcp.reading.deadlines import request_scope
from aws_data_mcp.server.sdk_adapter import client_connection

CLIENT_CHARS = 100
URI_CHARS = MESSAGE_LIMIT
"""A URI is the client's input: the line keeps this much of it (a cursor's URI fits whole)."""
_NAMED_CATALOG = re.compile(r"athena://catalogs/([^/?#]+)")
_GLUE_URIS = ("athena://databases", "permissions://tables/")
"""URIs that read the Glue catalog (Athena's AwsDataCatalog) without naming it."""
_JSONRPC_CODES = {INVALID_PARAMS: "invalid_argument", INVALID_REQUEST: "invalid_argument",
                  METHOD_NOT_FOUND: "method_not_found", INTERNAL_ERROR: "internal"}
"""The SDK's own JSON-RPC errors (which carry no code of this server's vocabulary) as the audit line names them."""


def catalog_of(uri: str | None) -> str | None:
    """The data catalog a URI reads, where it reads one: named in it, or the Glue catalog its family reads."""
    if not uri:
        return None
    named = _NAMED_CATALOG.match(uri)
    if named:
        return unquote(named[1])
    return GLUE_CATALOG if uri.startswith(_GLUE_URIS) else None


def requested_uri(params: Mapping[str, Any]) -> str | None:
    """The resource URI a request is about: a read's `uri`, or the `uri` argument of a tool that reads one."""
    arguments = params.get("arguments")
    uri = params.get("uri") or (arguments.get("uri") if isinstance(arguments, Mapping) else None)
    return uri if isinstance(uri, str) and uri else None


def _target(method: str, params: Mapping[str, Any], uri: str | None) -> dict[str, str]:
    """The resource URI or the tool (with the URI it reads, for get_resource) the request is about."""
    found: dict[str, str] = {}
    if isinstance(params.get("name"), str) and method == "tools/call":
        found["tool"] = echo(params["name"], ECHO_LIMIT)
    if uri is not None:
        found["uri"] = echo(uri, URI_CHARS)
        catalog = catalog_of(uri)
        if catalog is not None:
            found["catalog"] = catalog
    return found


def edge_caller(scope: Mapping[str, Any] | None) -> str | None:
    """Who API Gateway's authorizer vouched for (never a client header): the IAM caller's ARN, or the validated
    token's issuer#subject; None locally or where no authorizer ran."""
    event = scope.get("aws.event") if scope else None
    context = event.get("requestContext") if isinstance(event, Mapping) else None
    if not isinstance(context, Mapping):
        return None
    authorizer = context.get("authorizer") if isinstance(context.get("authorizer"), Mapping) else {}
    iam = authorizer.get("iam") if isinstance(authorizer.get("iam"), Mapping) else {}
    identity = context.get("identity") if isinstance(context.get("identity"), Mapping) else {}
    arn = iam.get("userArn") or identity.get("userArn")
    if isinstance(arn, str) and arn:
        return arn
    jwt = authorizer.get("jwt") if isinstance(authorizer.get("jwt"), Mapping) else {}
    claims = jwt.get("claims") if isinstance(jwt.get("claims"), Mapping) else authorizer.get("claims")
    if isinstance(claims, Mapping) and claims.get("iss") and claims.get("sub"):
        return f"{claims['iss']}#{claims['sub']}"
    return None


def _client(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The MCP client's own name and version, as it gave them (2026-07-28: on every request; else at `initialize`,
    kept by its session): which agent asked, in its words, bounded and never trusted for anything."""
    meta = ctx.meta if isinstance(ctx.meta, Mapping) else {}
    info: Any = meta.get(CLIENT_INFO_META_KEY)
    if info is None and ctx.method == "initialize":
        info = (ctx.params or {}).get("clientInfo")
    if info is None:
        try:
            params = client_connection(ctx).client_params
        except AttributeError:  # no connection behind this context
            params = None
        info = params.client_info.model_dump() if params is not None else None
    if not isinstance(info, Mapping) or not info.get("name"):
        return None
    return echo(f"{info['name']}/{info.get('version', '')}".rstrip("/"), CLIENT_CHARS)


def _transport(scope: Mapping[str, Any] | None) -> str:
    if scope is None:
        return "stdio"
    return "lambda" if "aws.event" in scope else "http"


def _field(result: Any, wire: str, model: str) -> Any:
    """A result's field, whether the chain handed on its wire form (a dict) or a model."""
    if isinstance(result, Mapping):
        return result.get(wire)
    return getattr(result, model, None) if isinstance(result, BaseModel) else None


def _tool_error(result: Any) -> str | None:
    """The code of a tool answer with `isError` (this server's payload, or a query's, whose `error` holds it)."""
    if not _field(result, "isError", "is_error"):
        return None
    structured = _field(result, "structuredContent", "structured_content")
    error = structured.get("error") if isinstance(structured, Mapping) else None
    if isinstance(error, Mapping):
        error = error.get("error")
    return str(error) if error else "internal"


def _protocol_error(exc: MCPError) -> str:
    data = exc.data if isinstance(exc.data, Mapping) else {}
    code = data.get("error")
    return str(code) if code else _JSONRPC_CODES.get(exc.code, f"jsonrpc_{exc.code}")


class AuditTrail:
    """`(ctx, call_next)` middleware: opens the call's record, lets the request run, writes the line however it
    ended. Notifications are not calls: they pass unrecorded, yet their log lines, like every request's, carry
    the MCP method and URI (one middleware, not two: it reads the URI once)."""

    def __init__(self, settings: Settings) -> None:
        self._sql_mode = settings.audit_sql

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        uri = requested_uri(params)
        bind_request(ctx.method, uri)
        if ctx.request_id is None:
            return await call_next(ctx)
        scope = request_scope(ctx)
        record = audit.opened(ctx.method, ctx.request_id, _target(ctx.method, params, uri), _transport(scope),
                              self._sql_mode, edge_caller(scope), _client(ctx))
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            record.ended(_protocol_error(exc))
            raise
        except ValidationError:
            record.ended("invalid_argument")
            raise
        except BaseException as exc:  # a failing handler, or the request cancelled: still one line
            record.ended("internal" if isinstance(exc, Exception) else "cancelled")
            raise
        else:
            record.ended(_tool_error(result))
            return result
        finally:
            audit.close(record)
