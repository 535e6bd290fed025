"""What the hosted-caller tests share: the two modes' settings, STS faults and call counts, callers as events.

The fixtures (`*_fixture`, registered under their short names) reach every test here through this package's
conftest.py. moto's STS neither checks trust
policies nor verifies web identity tokens, so the tests check what is sent to STS, inject STS's refusals where a
case needs them, and count every AWS call a request makes.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

import boto3
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.exchange import exchanges, function_session
from aws_data_mcp.identity.hosted.trust import TAGS_CLAIM
from aws_data_mcp.observability import logger
from support.events import body_json, load_event
from support.faults import AwsFaults
from support.logs import RecordKeeper

Invoke = Callable[[dict[str, Any]], dict[str, Any]]
ACCOUNT = "123456789012"
FUNCTION_ROLE = f"arn:aws:iam::{ACCOUNT}:role/aws-data-mcp-McpFunctionRole-TEST"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": FUNCTION_ROLE}, "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]}]})
IAM = Settings(mode="lambda", auth_mode="iam", function_role_arn=FUNCTION_ROLE,
               principal_role_map=((f"arn:aws:iam::{ACCOUNT}:user/ops", f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"),))
OIDC = Settings(mode="lambda", auth_mode="oidc", function_role_arn=FUNCTION_ROLE,
                oidc_role_arn=f"arn:aws:iam::{ACCOUNT}:role/DataAnalyst",
                oidc_role_map=(("admins", f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"),
                               ("contractors", f"arn:aws:iam::{ACCOUNT}:role/Contractor")))
ROLE_TAG = OIDC.oidc_role_tag
ISSUER = "https://issuer.example.com"
AUDIENCE = "aws-data-mcp"
FAR_FUTURE = 4102444800  # 2100-01-01
SIGNATURE = base64.urlsafe_b64encode(b"example signature, not a real token").rstrip(b"=").decode()


@pytest.fixture(autouse=True, name="fresh_exchanges")
def fresh_exchanges_fixture() -> Iterator[AwsFaults]:
    """No exchanged caller survives a test; STS faults and calls counted on the function's own session."""
    exchanges.clear()
    function_session._session = None
    session = boto3.Session()
    function_session._session = session
    yield AwsFaults(session)
    exchanges.clear()
    function_session._session = None


@pytest.fixture(name="sts")
def sts_fixture(fresh_exchanges: AwsFaults) -> AwsFaults:
    return fresh_exchanges


@pytest.fixture(scope="module", name="roles")
def roles_fixture() -> None:
    iam = boto3.client("iam", region_name="us-east-1")
    for name in ("DataAnalyst", "DataAdmin", "Contractor"):
        with contextlib.suppress(iam.exceptions.EntityAlreadyExistsException):
            iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)


def read(invoke: Invoke, event: dict[str, Any]) -> dict[str, Any]:
    return body_json(invoke(event))  # type: ignore[no-any-return]


def status_of(answer: dict[str, Any]) -> dict[str, Any]:
    return json.loads(answer["result"]["contents"][0]["text"])  # type: ignore[no-any-return]


def error_of(answer: dict[str, Any]) -> dict[str, Any]:
    """The structured error of a refused read (JSON-RPC error data)."""
    return answer["error"]["data"]  # type: ignore[no-any-return]


def reading(uri: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}})


def as_caller(relative: str, **changes: Any) -> dict[str, Any]:
    event = copy.deepcopy(load_event(relative))
    authorizer = event["requestContext"].get("authorizer") or {}
    if "arn" in changes:
        authorizer["iam"]["userArn"] = changes["arn"]
    if "sub" in changes:
        authorizer["jwt"]["claims"]["sub"] = changes["sub"]
    if "uri" in changes:
        event["body"] = reading(changes["uri"])
    return event


def _segment(document: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(document, separators=(",", ":")).encode()).rstrip(b"=").decode()


def tags_claim(role_tag: Any) -> dict[str, Any]:
    """The https://aws.amazon.com/tags claim carrying `role_tag` as the role tag's value, as the provider writes it."""
    return {"principal_tags": {ROLE_TAG: role_tag}, "transitive_tag_keys": []}


def token(sub: str, role_tag: Any = None, **claims: Any) -> str:
    """A compact JWT as an identity provider issues it, its role tag (the value, or a list as the provider writes it)
    in the tags claim (moto's STS does not check the signature: it is fake)."""
    payload: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "exp": FAR_FUTURE, "iat": 1795341600}
    if role_tag is not None:
        payload[TAGS_CLAIM] = tags_claim(role_tag)
    payload.update(claims)
    payload = {name: value for name, value in payload.items() if value is not None}
    return f"{_segment({'alg': 'RS256'})}.{_segment(payload)}.{SIGNATURE}"


def flattened(value: Any) -> str:
    """A claim as API Gateway's JWT authorizer passes it on: every value a string, an array as "[a b]", an object as
    Go prints a map."""
    if isinstance(value, list):
        return "[" + " ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{flattened(v)}" for k, v in value.items()) + "]"
    return str(value)


def oidc_event(sub: str, role_tag: Any = None, *, uri: str = "auth://status", bearer: str | None = None,
               **claims: Any) -> dict[str, Any]:
    """An HTTP API event whose JWT authorizer validated a token of `sub` (the same token in its header)."""
    event = copy.deepcopy(load_event("http-api-v2/oidc-auth-status.json"))
    issued = token(sub, role_tag, **claims)
    payload = json.loads(base64.urlsafe_b64decode(issued.split(".")[1] + "=="))
    event["requestContext"]["authorizer"]["jwt"]["claims"] = {k: flattened(v) for k, v in payload.items()}
    event["headers"]["authorization"] = bearer if bearer is not None else f"Bearer {issued}"
    event["requestContext"]["requestId"] = f"req-oidc-{sub}"
    event["body"] = reading(uri)
    return event


def iam_event(role: str, session: str, *, uri: str = "auth://status") -> dict[str, Any]:
    """An HTTP API event whose IAM authorizer verified a caller of `role` with session name `session`."""
    return as_caller("http-api-v2/iam-auth-status.json", arn=f"arn:aws:sts::{ACCOUNT}:assumed-role/{role}/{session}",
                     uri=uri)


def sent(sts: AwsFaults, operation: str) -> list[dict[str, str]]:
    """The parameters of every `operation` request the function sends to STS from now on (recorded, then sent)."""
    requests: list[dict[str, str]] = []

    def record(request: Any) -> bool:
        body = request.body.decode() if isinstance(request.body, bytes) else request.body
        requests.append(dict(parse_qsl(body)))
        return False  # never answered here: STS (moto) answers

    sts.fail(operation, "unused", when=record)
    return requests


def everything_written(records: RecordKeeper, capfd: pytest.CaptureFixture[str], *answers: str) -> str:
    """Every log record as the server writes it (Powertools' formatter: the message and every extra key), whatever
    reached stdout or stderr, and the answers: where a secret must never appear."""
    lines = [logger.registered_formatter.format(record) for record in records.records]
    out, err = capfd.readouterr()
    return "\n".join([*lines, out, err, *answers])
