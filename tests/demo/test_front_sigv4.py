"""The iam front before the real Lambda handler: every bad signature answered as API Gateway, no AWS call behind it.

The handler is the hosted app (Mangum, iam mode) acting as each caller through STS, so an admitted request makes
AWS calls; each refused one is answered by the front alone, with API Gateway's 403 and message, and the process
makes no AWS call at all for it (every botocore API call is counted).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import boto3
import httpx2
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from mangum import Mangum
from moto.core.utils import utcnow
from moto.sts.models import sts_backends

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.exchange import exchanges, function_session
from aws_data_mcp_demo.front.gateway import (
    EXPIRED_TOKEN,
    HOST_NOT_SIGNED,
    INVALID_TOKEN,
    SIGNATURE_MISMATCH,
    ApiGatewayFront,
)

ACCOUNT = "123456789012"
FUNCTION_ROLE = f"arn:aws:iam::{ACCOUNT}:role/aws-data-mcp-front-function"
URL = "http://127.0.0.1/mcp"
REGION = "us-east-1"
READ = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                   "params": {"uri": "auth://status"}}).encode()
OTHER_READ = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                         "params": {"uri": "admin://users"}}).encode()
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}


def sign(credentials: Credentials, body: bytes = READ, url: str = URL, *, service: str = "execute-api",
         headers: dict[str, str] | None = None) -> dict[str, str]:
    """The headers botocore's SigV4 (what mcp-proxy-for-aws uses) sends for this request."""
    request = AWSRequest(method="POST", url=url, data=body, headers={**MCP_HEADERS, **(headers or {})})
    SigV4Auth(credentials, service, REGION).add_auth(request)
    return dict(request.headers.items())


@pytest.fixture
def session() -> Credentials:
    """A caller's role session issued by the emulated STS, as `aws sso login` would issue one."""
    iam = boto3.client("iam", region_name=REGION)
    role = f"front-caller-{time.monotonic_ns()}"
    trust = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": FUNCTION_ROLE},
        "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]}]})
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    issued = boto3.client("sts", region_name=REGION).assume_role(RoleArn=arn, RoleSessionName="dana")["Credentials"]
    return Credentials(issued["AccessKeyId"], issued["SecretAccessKey"], issued["SessionToken"])


@pytest.fixture
def front() -> Iterator[ApiGatewayFront]:
    """The front before the hosted app in iam mode, as the demo runs it; no exchanged caller outlives the test."""
    exchanges.clear()
    function_session._session = None
    settings = Settings(mode="lambda", auth_mode="iam", function_role_arn=FUNCTION_ROLE)
    yield ApiGatewayFront(Mangum(create_http_app(settings), lifespan="off"), "iam", REGION)
    exchanges.clear()
    function_session._session = None


async def post(front: ApiGatewayFront, headers: dict[str, str], body: bytes = READ,
               path: str = "/mcp") -> httpx2.Response:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=front), base_url="http://127.0.0.1") as http:
        return await http.post(path, content=body, headers=headers)


def expire(credentials: Credentials) -> None:
    """End the role session in the emulated account, as its STS lifetime running out would."""
    issued = sts_backends[ACCOUNT]["aws"].get_assumed_role_from_access_key(credentials.access_key)
    issued.expiration = utcnow() - timedelta(minutes=1)


def without_host_in_signed_headers(headers: dict[str, str]) -> dict[str, str]:
    """A signature botocore computed (host included), its SignedHeaders rewritten to leave host out."""
    authorization = headers["Authorization"]
    names = authorization.split("SignedHeaders=")[1].split(",")[0]
    kept = ";".join(n for n in names.split(";") if n != "host")
    return {**headers, "Authorization": authorization.replace(f"SignedHeaders={names}", f"SignedHeaders={kept}")}


def refusals(credentials: Credentials) -> dict[str, tuple[dict[str, str], bytes, str, str]]:
    """case -> (headers, body, path, the message API Gateway answers with); all signed by a valid session."""
    token_less = Credentials(credentials.access_key, credentials.secret_key)
    wrong_token = Credentials(credentials.access_key, credentials.secret_key, credentials.token[::-1])
    no_token = {k: v for k, v in sign(credentials).items() if k.lower() != "x-amz-security-token"}
    return {
        "tampered header": ({**sign(credentials, headers={"x-demo-note": "alice"}), "x-demo-note": "mallory"},
                            READ, "/mcp", SIGNATURE_MISMATCH),
        "tampered path": (sign(credentials, url="http://127.0.0.1/elsewhere"), READ, "/mcp", SIGNATURE_MISMATCH),
        "tampered query": (sign(credentials, url=f"{URL}?cursor=a"), READ, "/mcp?cursor=b", SIGNATURE_MISMATCH),
        "tampered body": (sign(credentials), OTHER_READ, "/mcp", SIGNATURE_MISMATCH),
        "wrong service": (sign(credentials, service="s3"), READ, "/mcp",
                          "Credential should be scoped to correct service: 'execute-api'."),
        "session token left out": (no_token, READ, "/mcp", INVALID_TOKEN),
        "signed without the session token": (sign(token_less), READ, "/mcp", INVALID_TOKEN),
        "wrong session token": (sign(wrong_token), READ, "/mcp", INVALID_TOKEN),
        "host not signed": (without_host_in_signed_headers(sign(credentials)), READ, "/mcp", HOST_NOT_SIGNED),
        # the content-sha256 hole: a declared hash (signed) of the body that was signed, another body sent
        "declared hash of another body": (
            sign(credentials, headers={"x-amz-content-sha256": hashlib.sha256(READ).hexdigest()}),
            OTHER_READ, "/mcp", SIGNATURE_MISMATCH),
        "UNSIGNED-PAYLOAD": (sign(credentials, headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"}),
                             OTHER_READ, "/mcp", SIGNATURE_MISMATCH),
        "UNSIGNED-PAYLOAD, body unchanged": (
            sign(credentials, headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"}), READ, "/mcp",
            SIGNATURE_MISMATCH),
    }


@pytest.mark.anyio
async def test_each_bad_signature_gets_api_gateways_403_and_no_aws_call(
        front: ApiGatewayFront, session: Credentials, aws_calls: Counter[str]) -> None:
    admitted = await post(front, sign(session))
    status = json.loads(admitted.json()["result"]["contents"][0]["text"])
    assert admitted.status_code == 200 and status["principal_arn"].endswith("/dana")
    assert aws_calls["sts:AssumeRole"] == 1, aws_calls  # the control: an admitted request does reach AWS
    aws_calls.clear()
    exchanges.clear()  # so a refused request that got through would have to call STS again
    invocations = front.invocations
    for case, (headers, body, path, message) in refusals(session).items():
        answer = await post(front, headers, body, path)
        assert (answer.status_code, answer.json()) == (403, {"message": message}), case
        assert front.invocations == invocations, f"{case}: the handler ran"
        assert sum(aws_calls.values()) == 0, (case, aws_calls)


@pytest.mark.anyio
async def test_an_honest_declared_payload_hash_is_accepted(front: ApiGatewayFront, session: Credentials) -> None:
    declared = sign(session, headers={"x-amz-content-sha256": hashlib.sha256(READ).hexdigest()})
    answer = await post(front, declared)
    assert answer.status_code == 200 and front.recorded[-1]["body"] == READ.decode()


@pytest.mark.anyio
async def test_expired_session_credentials_are_refused_with_no_aws_call(
        front: ApiGatewayFront, session: Credentials, aws_calls: Counter[str]) -> None:
    assert (await post(front, sign(session))).status_code == 200
    aws_calls.clear()
    exchanges.clear()
    expire(session)
    answer = await post(front, sign(session))  # signed just now: only the session itself has ended
    assert (answer.status_code, answer.json()) == (403, {"message": EXPIRED_TOKEN})
    assert front.invocations == 1 and sum(aws_calls.values()) == 0, aws_calls


@pytest.mark.anyio
async def test_a_duplicated_signed_header_is_refused_as_sigv4_refuses_it(
        front: ApiGatewayFront, session: Credentials, aws_calls: Counter[str]) -> None:
    """SigV4 signs a repeated header as its values joined by commas, which is also what the event carries: a
    signature over the first value alone must not admit the second (it was verified, and the handler saw both)."""
    signed = sign(session, headers={"x-demo-note": "alice"})
    doubled = [*signed.items(), ("x-demo-note", "mallory")]
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=front), base_url="http://127.0.0.1") as http:
        answer = await http.post("/mcp", content=READ, headers=doubled)
    assert (answer.status_code, answer.json()) == (403, {"message": SIGNATURE_MISMATCH})
    assert front.invocations == 0 and sum(aws_calls.values()) == 0, aws_calls
    joined = sign(session, headers={"x-demo-note": "alice,mallory"})  # signed as SigV4 joins them: admitted
    admitted = [*[(k, v) for k, v in joined.items() if k != "x-demo-note"], ("x-demo-note", "alice"),
                ("x-demo-note", "mallory")]
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=front), base_url="http://127.0.0.1") as http:
        assert (await http.post("/mcp", content=READ, headers=admitted)).status_code == 200
    assert front.recorded[-1]["headers"]["x-demo-note"] == "alice,mallory"
