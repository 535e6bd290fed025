"""The hosted path on one machine: the API Gateway front before the real Lambda handler, with real clients."""

from __future__ import annotations

import json
import os
import re
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import boto3
import httpx2
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.front.gateway import ApiGatewayFront, DemoIssuer
from aws_data_mcp_demo.front.hosted import PROXY_VERSION, banner
from support.events import ROOT, http_api_event, load_event
from support.queries import query_as
from support.servers import lambda_container

PROXY = ROOT / ".venv-proxy" / "bin" / "mcp-proxy-for-aws"


async def read_as(url: str, token: str | None, uri: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        return json.loads((await client.read_resource(uri)).contents[0].text)


@pytest.mark.anyio
async def test_oidc_callers_read_the_same_uris_as_themselves(oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    alice = await read_as(url, tokens["alice"], "auth://status")
    bob = await read_as(url, tokens["bob"], "auth://status")
    assert alice["principal_arn"].endswith("assumed-role/demo-analyst-role/alice")
    assert bob["principal_arn"].endswith("assumed-role/demo-admin-role/bob")
    alice_buckets = await read_as(url, tokens["alice"], "permissions://discover")
    carol_buckets = await read_as(url, tokens["carol"], "permissions://discover")
    assert alice_buckets["levels"] != carol_buckets["levels"]
    assert {b["bucket"] for b in carol_buckets["buckets"] if b["level"] != "none"} == {"acme-datalake-curated"}
    with pytest.raises((MCPError, BaseExceptionGroup)) as denied:
        await read_as(url, tokens["carol"], "admin://users")
    assert_denied(the_error(denied.value).error.data, "iam:ListUsers", "demo-contractor-role/carol")


def the_error(raised: BaseException) -> MCPError:
    """The one MCPError the client raised: the SDK client's task group may wrap it in an exception group."""
    if isinstance(raised, BaseExceptionGroup):
        (only,) = raised.exceptions
        return the_error(only)
    assert isinstance(raised, MCPError), repr(raised)
    return raised


def assert_denied(error: Any, action: str, principal: str) -> None:
    """The structured refusal a denied caller gets: access_denied, the IAM action it lacks, and who was refused."""
    assert isinstance(error, dict), error
    assert error["error"] == "access_denied" and error["action"] == action, error
    assert error["retryable"] is False and any(principal in line for line in error["details"]), error


def test_oidc_front_refuses_what_the_jwt_authorizer_refuses(oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "auth://status"}})
    other_issuer = DemoIssuer(url.removesuffix("/mcp")).token("alice", ["analysts"])
    for token in (None, "not-a-jwt", other_issuer, tokens["alice"][:-4] + "AAAA"):
        headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
        answer = httpx2.post(url, content=body, headers=headers)
        assert answer.status_code == 401 and answer.json() == {"message": "Unauthorized"}
        assert answer.headers["www-authenticate"].startswith("Bearer")
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        metadata = httpx2.get(url.replace("/mcp", path)).json()
        assert metadata["resource"] == url  # the URL the client used: http on this front (https on AWS)
        issuer = httpx2.get(url.replace("/mcp", "/.well-known/openid-configuration")).json()["issuer"]
        assert metadata["authorization_servers"] == [issuer] == [url.removesuffix("/mcp")]  # RFC 8414: exact


@pytest.mark.anyio
@pytest.mark.skipif(not PROXY.exists(), reason="mcp-proxy-for-aws is installed by `make test` into .venv-proxy")
async def test_iam_callers_through_mcp_proxy_for_aws_over_stdio(iam_demo: tuple[str, str]) -> None:
    """Each caller connects exactly as the banner says (the proxy installed in .venv-proxy standing in for `uvx`)."""
    url, banner = iam_demo
    seen = {}
    for name in ("alice", "carol"):
        section = banner.split(f"== {name}:", 1)[1]
        settings, command = re.search(rf"^(\S+=.*) \\\n  uvx mcp-proxy-for-aws@{PROXY_VERSION} (.*)$", section,
                                      re.M).groups()
        env = dict(pair.split("=", 1) for pair in settings.split()) | {
            "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}
        assert command.split()[0] == url and f"--profile demo-{name}" in command
        params = StdioServerParameters(command=str(PROXY), env=env, args=command.split())
        async with Client(params, mode="legacy") as client:
            status = json.loads((await client.read_resource("auth://status")).contents[0].text)
            seen[name] = (status["principal_arn"], await client.call_tool("get_resource", {"uri": "admin://users"}))
    (alice, alice_users), (carol, carol_users) = seen["alice"], seen["carol"]
    assert alice.endswith("assumed-role/demo-analyst-role/alice") and alice_users.is_error is False
    assert carol.endswith("assumed-role/demo-contractor-role/carol") and carol_users.is_error is True
    assert_denied(carol_users.structured_content, "iam:ListUsers", "demo-contractor-role/carol")
    assert json.loads(carol_users.content[0].text) == carol_users.structured_content  # the same error, as text


def test_the_iam_banner_pins_the_tested_proxy_and_says_what_runs_it() -> None:
    demo = SimpleNamespace(auth_mode="iam", url="http://127.0.0.1:8000/mcp", profiles=None,
                           account=SimpleNamespace(region="us-east-1", account_id="123456789012"),
                           profile_environment=lambda: {"AWS_CONFIG_FILE": "/state/demo-iam/config"})
    text = banner(demo)  # type: ignore[arg-type]
    commands = re.findall(r"^  uvx (\S+) ", text, re.M)
    assert commands and set(commands) == {f"mcp-proxy-for-aws@{PROXY_VERSION}"}, text
    assert "`uvx` from uv" in text and "@latest" not in text
    assert f"mcp-proxy-for-aws=={PROXY_VERSION}" in (ROOT / "Makefile").read_text(), "the suite runs the version named"


# --------------------------------------------------------------------------- the front alone, before any handler


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.events.append(event)
        return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": "{}"}


def signed(credentials: Any, body: bytes, url: str = "http://127.0.0.1/mcp", *, when: datetime | None = None,
           region: str = "us-east-1") -> dict[str, str]:
    request = AWSRequest(method="POST", url=url, data=body, headers={"content-type": "application/json"})
    signer = SigV4Auth(credentials, "execute-api", region)
    if when is None:
        signer.add_auth(request)
    else:  # botocore signs "now": sign at another time through its own pieces
        request.context["timestamp"] = when.strftime("%Y%m%dT%H%M%SZ")
        signer._modify_request_before_signing(request)
        signature = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
        signer._inject_signature_to_request(request, signature)
    return dict(request.headers.items())


def shape(value: Any) -> Any:
    """The keys at every level and the type of every value: what two events of one kind must share."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def assert_shaped_like(event: dict[str, Any], relative: str) -> None:
    """The front's event against the deployed one in events/: the same fields and types, requestContext all the way
    down (authorizer included); headers are the request's own, so only their being strings is compared."""
    reference = load_event(relative)
    assert {key: type(value).__name__ for key, value in event.items()} == \
        {key: type(value).__name__ for key, value in reference.items()}
    assert shape(event["requestContext"]) == shape(reference["requestContext"])
    assert all(isinstance(value, str) for value in event["headers"].values())
    assert event["headers"]["x-forwarded-proto"] == "http"  # the scheme the client used, as API Gateway says it


@pytest.fixture
def iam_user() -> Any:
    iam = boto3.client("iam", region_name="us-east-1")
    name = f"front-{time.monotonic_ns()}"
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return boto3.Session(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                         region_name="us-east-1").get_credentials(), name


@pytest.mark.anyio
async def test_sigv4_front_admits_only_valid_signatures_and_sends_api_gateway_shaped_events(iam_user: Any) -> None:
    credentials, name = iam_user
    recorder = Recorder()
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=ApiGatewayFront(recorder, "iam", "us-east-1")),
                              base_url="http://127.0.0.1")
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    ok = await http.post("/mcp", content=body, headers=signed(credentials, body))
    assert ok.status_code == 200 and len(recorder.events) == 1
    event = recorder.events[0]
    assert event["requestContext"]["authorizer"]["iam"]["userArn"].endswith(f":user/{name}")
    assert_shaped_like(event, "http-api-v2/iam-auth-status.json")
    refusals = {
        "unsigned": ({"content-type": "application/json"}, body, "Missing Authentication Token"),
        "tampered": (signed(credentials, body), body.replace(b"ping", b"pong"), "signature we calculated"),
        "expired": (signed(credentials, body, when=datetime.now(UTC) - timedelta(minutes=20)), body, "expired"),
        "unknown key": (signed(type(credentials)("AKIAUNKNOWN000000000", "x" * 40), body), body, "security token"),
        "other region": (signed(credentials, body, region="eu-west-1"), body, "scoped"),
    }
    for case, (headers, sent, message) in refusals.items():
        answer = await http.post("/mcp", content=sent, headers=headers)
        assert answer.status_code == 403, case
        assert message in answer.json()["message"], (case, answer.json())
    assert len(recorder.events) == 1  # no refused request reached the handler
    assert (await http.post("/elsewhere", content=body, headers=signed(credentials, body))).status_code == 404


def reference_token(issuer: DemoIssuer) -> str:
    """A token from the demo issuer with the claims of the deployed event's token (API Gateway passes them all)."""
    reference = load_event("http-api-v2/oidc-auth-status.json")["requestContext"]["authorizer"]["jwt"]["claims"]
    now = int(time.time())
    values = {"iss": issuer.url, "aud": issuer.audience, "sub": "dana", "iat": now, "exp": now + 600,
              "groups": ["analysts"], "https://aws.amazon.com/tags": {
                  "principal_tags": {"aws-data-mcp-role": ["analysts"]}, "transitive_tag_keys": []}}
    assert set(values) == set(reference)
    return jwt.encode({"alg": "RS256", "kid": "demo"}, values, issuer.key)


def oidc_front() -> tuple[DemoIssuer, Recorder, httpx2.AsyncClient]:
    """The oidc front before a handler that records each event it would get."""
    issuer, recorder = DemoIssuer("http://127.0.0.1:9999"), Recorder()
    front = ApiGatewayFront(recorder, "oidc", "us-east-1", issuer)
    return issuer, recorder, httpx2.AsyncClient(transport=httpx2.ASGITransport(app=front), base_url=issuer.url)


@pytest.mark.anyio
async def test_jwt_front_checks_issuer_audience_expiry_and_not_before() -> None:
    issuer, recorder, http = oidc_front()
    token = reference_token(issuer)
    ok = await http.post("/mcp", content=b"{}", headers={"authorization": f"Bearer {token}"})
    assert ok.status_code == 200
    claims = recorder.events[0]["requestContext"]["authorizer"]["jwt"]["claims"]
    assert claims["sub"] == "dana" and claims["groups"] == "[analysts]"
    assert_shaped_like(recorder.events[0], "http-api-v2/oidc-auth-status.json")
    wrong_audience = DemoIssuer(issuer.url, audience="someone-else", key=issuer.key)
    for token in (issuer.token("dana", [], lifetime=-60), issuer.token("dana", [], not_before=time.time() + 600),
                  wrong_audience.token("dana", []), DemoIssuer("http://elsewhere", key=issuer.key).token("dana", [])):
        refused = await http.post("/mcp", content=b"{}", headers={"authorization": f"Bearer {token}"})
        assert refused.status_code == 401
    unpublished = DemoIssuer(issuer.url, key=RSAKey.generate_key(2048, parameters={"kid": "demo"}))
    refused = await http.post("/mcp", content=b"{}",
                              headers={"authorization": f"Bearer {unpublished.token('dana', [])}"})
    assert refused.status_code == 401  # the same kid, a key the issuer never published
    assert len(recorder.events) == 1
    discovery = (await http.get("/.well-known/openid-configuration")).json()
    assert discovery["issuer"] == issuer.url and discovery["jwks_uri"] == f"{issuer.url}/.well-known/jwks.json"
    published = KeySet.import_key_set((await http.get(discovery["jwks_uri"])).json())
    assert jwt.decode(token, published, algorithms=["RS256"]).claims["sub"] == "dana"  # what the authorizer used


@pytest.mark.anyio
async def test_the_event_carries_the_query_string_as_api_gateway_does() -> None:
    issuer, recorder, http = oidc_front()
    headers = {"authorization": f"Bearer {issuer.token('dana', [])}"}
    await http.post("/mcp?a=1&a=2&blank=&x=%2F", content=b"{}", headers=headers)
    await http.post("/mcp", content=b"{}", headers=headers)
    with_query, without = recorder.events
    assert with_query["rawQueryString"] == "a=1&a=2&blank=&x=%2F"
    assert with_query["queryStringParameters"] == {"a": "1,2", "blank": "", "x": "/"}
    assert without["rawQueryString"] == "" and "queryStringParameters" not in without


@pytest.mark.parametrize(("proto", "scheme"), [("https", "https"), (None, "https"), ("http", "http"), ("ftp", "https")])
def test_metadata_resource_keeps_the_scheme_the_client_used(proto: str | None, scheme: str) -> None:
    """Deployed, API Gateway says https (and Mangum assumes it when nothing is said); only the front says http."""
    settings = Settings(mode="lambda", auth_mode="oidc", oidc_issuer="https://issuer.example.com/")
    headers = {"x-forwarded-proto": proto} if proto else {}
    event = http_api_event(None, method="GET", path="/.well-known/oauth-protected-resource/mcp", headers=headers)
    metadata = json.loads(lambda_container(settings)(event)["body"])
    assert metadata["resource"] == f"{scheme}://{event['headers']['host']}/mcp"


# --------------------------------------------------------------------------- queries as each caller

QUERY_SQL = ("SELECT channel, count(*) AS orders FROM orders WHERE order_date = '2026-01-02' GROUP BY channel "
       "ORDER BY channel")


@pytest.mark.anyio
async def test_a_query_runs_as_its_caller_and_its_id_answers_each_reader_as_athena_does(
        oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, alice = await query_as(url, tokens["alice"], {"sql": QUERY_SQL, "database": "sales"})
    assert not failed and alice["state"] == "SUCCEEDED", alice
    assert [row[0] for row in alice["results"]["rows"]] == ["mobile", "store", "web"]
    assert alice["result_file"]["presigned_url"] is None  # a hosted caller's credentials are temporary
    uri = alice["uri"]
    bob = await read_as(url, tokens["bob"], uri)  # demo-admin-role may read the workgroup's executions
    assert bob["execution_id"] == alice["execution_id"] and bob["results"]["rows"] == alice["results"]["rows"]
    with pytest.raises((MCPError, BaseExceptionGroup)) as denied:
        await read_as(url, tokens["carol"], uri)  # demo-contractor-role has no Athena permission
    assert_denied(the_error(denied.value).error.data, "athena:GetQueryExecution", "demo-contractor-role/carol")
    failed, carol = await query_as(url, tokens["carol"], {"sql": QUERY_SQL, "database": "sales"})
    # Named no workgroup: carol's query runs in the one she may use (partners), not refused in the default one.
    assert not failed and carol["state"] == "SUCCEEDED" and carol["workgroup"] == "partners", carol
