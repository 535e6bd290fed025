"""A local stand-in for API Gateway (HTTP API), so the hosted path runs on one machine.

It does only what API Gateway does for this stack's routes: checks the caller (a SigV4
signature in iam mode, a JWT in oidc mode) and answers 403/401 exactly as API Gateway
would, builds the payload 2.0 event with the requestContext API Gateway sends, and runs
the real Lambda handler in-process with a Lambda-like context. The handler cannot tell it
from API Gateway; identity is never resolved here beyond what the authorizers do. Demo
and development only: this module never ships in the Lambda package.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey
from joserfc.jwt import JWTClaimsRegistry
from moto.iam.models import iam_backends
from moto.sts.models import sts_backends
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

API_ID = "demo"
FUNCTION_TIMEOUT_SECONDS = 29
SIGNATURE_MAX_AGE_SECONDS = 15 * 60
SIGNED_SERVICE = "execute-api"
MCP_ROUTES = {("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")}
PUBLIC_OIDC_ROUTES = {("GET", "/.well-known/oauth-protected-resource"),
                      ("GET", "/.well-known/oauth-protected-resource/mcp")}
ISSUER_PATHS = ("/.well-known/openid-configuration", "/.well-known/jwks.json")

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


class GatewayRefusal(Exception):
    """What API Gateway answers before the integration runs."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, dict(headers or {})


# --------------------------------------------------------------------------- iam: SigV4, against the account's keys

@dataclass(frozen=True)
class _Key:
    secret: str
    session_token: str | None
    arn: str
    user_id: str
    account: str


def _key(access_key_id: str) -> _Key | None:
    """The emulated account's secret for an access key: an IAM user's key or an STS session's."""
    for account, partitions in iam_backends.items():
        for user in partitions["aws"].users.values():
            for key in user.access_keys:
                if key.access_key_id == access_key_id and key.status == "Active":
                    return _Key(key.secret_access_key, None, user.arn, user.id, account)
        session = sts_backends[account]["aws"].get_assumed_role_from_access_key(access_key_id)
        if session is not None:
            return _Key(session.secret_access_key, session.session_token, session.arn, session.user_id, account)
    return None


def _authorization(header: str) -> dict[str, str]:
    scheme, _, rest = header.partition(" ")
    if scheme != "AWS4-HMAC-SHA256":
        raise GatewayRefusal(403, "Missing Authentication Token")
    fields = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
    if not {"Credential", "SignedHeaders", "Signature"} <= set(fields):
        raise GatewayRefusal(403, "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature'.")
    return fields


def verify_sigv4(method: str, url: str, headers: Mapping[str, str], body: bytes, region: str) -> dict[str, Any]:
    """API Gateway's AWS_IAM check: the signature recomputed with botocore's SigV4 over the signed headers.

    Returns the IAM authorizer context (requestContext.authorizer.iam), or raises the 403 API Gateway gives.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    if "authorization" not in lowered:
        raise GatewayRefusal(403, "Missing Authentication Token")
    fields = _authorization(lowered["authorization"])
    access_key_id, date, signed_region, service, _ = (fields["Credential"].split("/") + [""] * 5)[:5]
    if signed_region != region or service != SIGNED_SERVICE:
        raise GatewayRefusal(403, f"Credential should be scoped to a valid region and service '{SIGNED_SERVICE}'.")
    key = _key(access_key_id)
    if key is None or (key.session_token is not None and lowered.get("x-amz-security-token") != key.session_token):
        raise GatewayRefusal(403, "The security token included in the request is invalid.")
    stamp = lowered.get("x-amz-date", "")
    try:
        signed_at = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise GatewayRefusal(403, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' "
                             "header.") from None
    if abs(time.time() - signed_at) > SIGNATURE_MAX_AGE_SECONDS or not stamp.startswith(date):
        raise GatewayRefusal(403, f"Signature expired: {stamp} is now earlier or later than the allowed window.")
    names = fields["SignedHeaders"].split(";")
    # botocore's own canonical request over exactly the headers the client signed, at the time it signed.
    request = AWSRequest(method=method, url=url, data=body, headers={n: lowered.get(n, "") for n in names})
    request.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(access_key_id, key.secret, key.session_token), SIGNED_SERVICE, region)
    expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
    if not hmac.compare_digest(expected, fields["Signature"]):
        raise GatewayRefusal(403, "The request signature we calculated does not match the signature you provided. "
                             "Check your AWS Secret Access Key and signing method. Consult the service "
                             "documentation for details.")
    return {"iam": {"accessKey": access_key_id, "accountId": key.account, "callerId": key.user_id,
                    "cognitoIdentity": None, "principalOrgId": None, "userArn": key.arn, "userId": key.user_id}}


# --------------------------------------------------------------------------- oidc: a demo issuer and the JWT authorizer

@dataclass
class DemoIssuer:
    """An OpenID issuer for demo users: its own signing key, discovery document and JWKS."""

    url: str
    audience: str = "aws-data-mcp"
    key: RSAKey = field(default_factory=lambda: RSAKey.generate_key(2048, parameters={"kid": "demo", "use": "sig"}))

    def token(self, subject: str, groups: list[str], lifetime: int = 3600, not_before: float | None = None) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": self.audience, "sub": subject, "iat": now, "exp": now + lifetime,
                  "nbf": int(not_before if not_before is not None else now), "groups": groups}
        return jwt.encode({"alg": "RS256", "kid": "demo"}, claims, self.key)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.key.as_dict(private=False)]}

    def discovery(self) -> dict[str, Any]:
        return {"issuer": self.url, "jwks_uri": f"{self.url}/.well-known/jwks.json",
                "id_token_signing_alg_values_supported": ["RS256"], "response_types_supported": ["code"],
                "subject_types_supported": ["public"]}

    def authorize(self, authorization: str | None) -> dict[str, Any]:
        """API Gateway's JWT authorizer: signature, issuer, audience, expiry, not-before; then the claims."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise GatewayRefusal(401, "Unauthorized", {"www-authenticate": "Bearer"})
        try:
            decoded = jwt.decode(token, KeySet([self.key]), algorithms=["RS256"])
            JWTClaimsRegistry(iss={"essential": True, "value": self.url},
                              aud={"essential": True, "value": self.audience},
                              exp={"essential": True}, nbf={"essential": False}).validate(decoded.claims)
        except (JoseError, ValueError) as exc:
            challenge = f'Bearer scope="" error="invalid_token" error_description="{type(exc).__name__}"'
            raise GatewayRefusal(401, "Unauthorized", {"www-authenticate": challenge}) from None
        claims = {k: (f"[{' '.join(map(str, v))}]" if isinstance(v, list) else str(v))
                  for k, v in decoded.claims.items()}
        return {"jwt": {"claims": claims, "scopes": None}}


# --------------------------------------------------------------------------- the front


class LambdaContext:
    """What Powertools and Mangum read of a Lambda context; the remaining time really counts down."""

    function_name = "aws-data-mcp-demo"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:aws-data-mcp-demo:live"
    memory_limit_in_mb = 1024
    log_group_name = "/aws/lambda/aws-data-mcp-demo"
    log_stream_name = "demo"

    def __init__(self, request_id: str) -> None:
        self.aws_request_id = request_id
        self._deadline = time.monotonic() + FUNCTION_TIMEOUT_SECONDS

    def get_remaining_time_in_millis(self) -> int:
        return max(int((self._deadline - time.monotonic()) * 1000), 0)


class ApiGatewayFront:
    """ASGI app: authorizer, event, the Lambda handler (one container thread), the response as API Gateway maps it.

    `recorded` keeps the last events built, so tests can compare them with the shapes in events/.
    """

    def __init__(self, handler: LambdaHandler, auth_mode: str, region: str, issuer: DemoIssuer | None = None) -> None:
        self.handler, self.auth_mode, self.region, self.issuer = handler, auth_mode, region, issuer
        self.recorded: list[dict[str, Any]] = []
        self.invocations = 0
        self._container = ThreadPoolExecutor(
            max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        body = await request.body()
        response = await self._answer(request, body)
        await response(scope, receive, send)

    async def _answer(self, request: Request, body: bytes) -> Response:
        method, path = request.method, request.url.path.rstrip("/") or "/"
        if self.issuer is not None and method == "GET" and path in ISSUER_PATHS:
            document = self.issuer.discovery() if path.endswith("openid-configuration") else self.issuer.jwks()
            return JSONResponse(document)
        public = self.auth_mode == "oidc" and (method, path) in PUBLIC_OIDC_ROUTES
        if (method, path) not in MCP_ROUTES and not public:
            return JSONResponse({"message": "Not Found"}, status_code=404)
        try:
            authorizer = None if public else self._authorize(request, body)
        except GatewayRefusal as refusal:
            return JSONResponse({"message": refusal.message}, status_code=refusal.status, headers=refusal.headers)
        event = self._event(request, body, authorizer)
        self.recorded = [*self.recorded[-49:], event]
        loop = asyncio.get_running_loop()
        self.invocations += 1
        result = await loop.run_in_executor(self._container, self.handler, event,
                                            LambdaContext(event["requestContext"]["requestId"]))
        return _response(result)

    def _authorize(self, request: Request, body: bytes) -> dict[str, Any]:
        if self.auth_mode == "oidc":
            assert self.issuer is not None
            return self.issuer.authorize(request.headers.get("authorization"))
        return verify_sigv4(request.method, str(request.url), dict(request.headers), body, self.region)

    def _event(self, request: Request, body: bytes, authorizer: dict[str, Any] | None) -> dict[str, Any]:
        """The HTTP API payload 2.0 event API Gateway sends for this request (stage $default)."""
        now = time.time()
        headers: dict[str, str] = {}
        for name, value in request.headers.items():
            headers[name] = f"{headers[name]},{value}" if name in headers else value
        path = request.url.path
        route = ("GET " if request.method == "GET" else f"{request.method} ") + path.rstrip("/")
        context: dict[str, Any] = {
            "accountId": "123456789012", "apiId": API_ID, "domainName": request.url.hostname or "localhost",
            "domainPrefix": (request.url.hostname or "localhost").split(".")[0],
            "http": {"method": request.method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": request.client.host if request.client else "127.0.0.1",
                     "userAgent": request.headers.get("user-agent", "")},
            "requestId": str(uuid.uuid4()), "routeKey": route, "stage": "$default",
            "time": datetime.fromtimestamp(now, UTC).strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(now * 1000),
        }
        if authorizer is not None:
            context["authorizer"] = authorizer
        text = body.decode("utf-8", "replace") if body else None
        return {"version": "2.0", "routeKey": route, "rawPath": path,
                "rawQueryString": urlencode(parse_qsl(request.url.query)), "headers": headers,
                "requestContext": context, "body": text, "isBase64Encoded": False}


def _response(result: Mapping[str, Any]) -> Response:
    """The integration's answer as API Gateway returns it, WWW-Authenticate renamed as API Gateway renames it."""
    body = result.get("body") or ""
    content = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode()
    headers = {("x-amzn-remapped-www-authenticate" if k.lower() == "www-authenticate" else k): v
               for k, v in (result.get("headers") or {}).items() if k.lower() != "content-length"}
    return Response(content, status_code=int(result.get("statusCode", 200)), headers=headers)
