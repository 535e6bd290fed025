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
import hashlib
import hmac
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

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

from aws_data_mcp.transport.lambda_context import LocalLambdaContext

API_ID = "demo"
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

SIGNATURE_MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your "
                      "AWS Secret Access Key and signing method. Consult the service documentation for details.")
INVALID_TOKEN = "The security token included in the request is invalid."
EXPIRED_TOKEN = "The security token included in the request is expired"
HOST_NOT_SIGNED = "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."


@dataclass(frozen=True)
class _Key:
    secret: str
    session_token: str | None
    arn: str
    user_id: str
    account: str
    expires: datetime | None = None
    """When a role session's credentials stop being accepted; None for an IAM user's long-term key."""


def _key(access_key_id: str) -> _Key | None:
    """The emulated account's secret for an access key: an IAM user's key or an STS session's."""
    for account, partitions in iam_backends.items():
        for user in partitions["aws"].users.values():
            for key in user.access_keys:
                if key.access_key_id == access_key_id and key.status == "Active":
                    return _Key(key.secret_access_key, None, user.arn, user.id, account)
        session = sts_backends[account]["aws"].get_assumed_role_from_access_key(access_key_id)
        if session is not None:  # moto keeps the expiration as a naive UTC datetime
            return _Key(session.secret_access_key, session.session_token, session.arn, session.user_id, account,
                        session.expiration.replace(tzinfo=UTC))
    return None


def _authorization(header: str) -> dict[str, str]:
    scheme, _, rest = header.partition(" ")
    if scheme != "AWS4-HMAC-SHA256":
        raise GatewayRefusal(403, "Missing Authentication Token")
    fields = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
    if not {"Credential", "SignedHeaders", "Signature"} <= set(fields):
        raise GatewayRefusal(403, "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature'.")
    return fields


def _scoped_key_id(credential: str, region: str) -> tuple[str, str]:
    """The access key id and the signing date of `Credential=`, once its scope is this API's region and service.

    A signature for another service (s3, sts...) must not open execute-api, even with the same keys.
    """
    access_key_id, date, signed_region, service, terminator = (credential.split("/") + [""] * 5)[:5]
    if terminator != "aws4_request":
        raise GatewayRefusal(403, "Credential should be scoped with a valid terminator: 'aws4_request'.")
    if signed_region != region:
        raise GatewayRefusal(403, f"Credential should be scoped to a valid region, not '{signed_region}'.")
    if service != SIGNED_SERVICE:
        raise GatewayRefusal(403, f"Credential should be scoped to correct service: '{SIGNED_SERVICE}'.")
    return access_key_id, date


def _signing_key(access_key_id: str, session_token: str | None) -> _Key:
    """The key that signed, refused as API Gateway refuses it: unknown, wrong session token, or an ended session.

    A role session's key is only good with its own session token and until the session expires; without the
    expiry check a leaked session would outlive the STS lifetime that bounds it on AWS.
    """
    key = _key(access_key_id)
    if key is None or (key.session_token is not None and session_token != key.session_token):
        raise GatewayRefusal(403, INVALID_TOKEN)
    if key.expires is not None and key.expires <= datetime.now(UTC):
        raise GatewayRefusal(403, EXPIRED_TOKEN)
    return key


def _check_signing_time(stamp: str, date: str) -> None:
    """A signature is good for 15 minutes around its X-Amz-Date, so a captured request cannot be replayed later."""
    try:
        signed_at = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise GatewayRefusal(403, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' "
                             "header.") from None
    if abs(time.time() - signed_at) > SIGNATURE_MAX_AGE_SECONDS or not stamp.startswith(date):
        raise GatewayRefusal(403, f"Signature expired: {stamp} is now earlier or later than the allowed window.")


def _signed_header_names(signed_headers: str) -> list[str]:
    """The names the client signed; `host` must be one, or the signature would hold for any host it is sent to."""
    names = [name.strip().lower() for name in signed_headers.split(";") if name.strip()]
    if "host" not in names:
        raise GatewayRefusal(403, HOST_NOT_SIGNED)
    return names


def _payload_hash(headers: Mapping[str, str], body: bytes) -> str:
    """The SHA-256 of the body as received: the only payload hash execute-api signs over.

    botocore's canonical request takes the payload hash from an `x-amz-content-sha256` header when there is
    one, which would let a request signed over one body carry another. API Gateway hashes the body it
    received, so a declared hash that differs from it is a signature mismatch. `UNSIGNED-PAYLOAD` is refused
    the same way: it is an S3-style option (botocore sends it only when an operation model turns payload
    signing off over https, never for execute-api, and always signs the payload over http), nothing documents
    execute-api honouring it, and honouring it would leave the body (the JSON-RPC request itself)
    unauthenticated. No real client of the demo is affected.
    """
    digest = hashlib.sha256(body).hexdigest()
    declared = headers.get("x-amz-content-sha256")
    if declared is not None and not hmac.compare_digest(declared.strip(), digest):
        raise GatewayRefusal(403, SIGNATURE_MISMATCH)
    return digest


class _ExecuteApiSigner(SigV4Auth):
    """botocore's SigV4 with the payload hash fixed to the body's own, whatever headers the request carries."""

    def __init__(self, credentials: Credentials, region: str, payload_hash: str) -> None:
        super().__init__(credentials, SIGNED_SERVICE, region)
        self._payload_hash = payload_hash

    def payload(self, request: AWSRequest) -> str:
        return self._payload_hash


def verify_sigv4(method: str, url: str, headers: Mapping[str, str], body: bytes, region: str) -> dict[str, Any]:
    """API Gateway's AWS_IAM check: the signature recomputed with botocore's SigV4 over the signed headers.

    Returns the IAM authorizer context (requestContext.authorizer.iam), or raises the 403 API Gateway gives.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    if "authorization" not in lowered:
        raise GatewayRefusal(403, "Missing Authentication Token")
    fields = _authorization(lowered["authorization"])
    access_key_id, date = _scoped_key_id(fields["Credential"], region)
    key = _signing_key(access_key_id, lowered.get("x-amz-security-token"))
    stamp = lowered.get("x-amz-date", "")
    _check_signing_time(stamp, date)
    names = _signed_header_names(fields["SignedHeaders"])
    payload_hash = _payload_hash(lowered, body)
    # botocore's own canonical request over exactly the headers the client signed, at the time it signed; the
    # declared content hash (if signed) now equals the body's, and the signer never reads anything else.
    signed = {n: (payload_hash if n == "x-amz-content-sha256" else lowered.get(n, "")) for n in names}
    request = AWSRequest(method=method, url=url, data=body, headers=signed)
    request.context["timestamp"] = stamp
    signer = _ExecuteApiSigner(Credentials(access_key_id, key.secret, key.session_token), region, payload_hash)
    expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
    if not hmac.compare_digest(expected, fields["Signature"]):
        raise GatewayRefusal(403, SIGNATURE_MISMATCH)
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
        return self.sign({"sub": subject, "groups": groups}, lifetime, not_before)

    def sign(self, identity: Mapping[str, Any], lifetime: int = 3600, not_before: float | None = None) -> str:
        """A token vouching for `identity` (subject and attributes), from this issuer, for its audience."""
        now = int(time.time())
        claims = {**identity, "iss": self.url, "aud": self.audience, "iat": now, "exp": now + lifetime,
                  "nbf": int(not_before if not_before is not None else now)}
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
            # The published JWKS, as the authorizer reads it through the discovery document's jwks_uri.
            decoded = jwt.decode(token, KeySet.import_key_set(self.jwks()), algorithms=["RS256"])
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
                                            LocalLambdaContext(event["requestContext"]["requestId"]))
        return _response(result)

    def _authorize(self, request: Request, body: bytes) -> dict[str, Any]:
        if self.auth_mode == "oidc":
            assert self.issuer is not None
            return self.issuer.authorize(request.headers.get("authorization"))
        # The values the event will carry: a repeated header is verified as SigV4 signs it, joined by commas.
        return verify_sigv4(request.method, str(request.url), _joined_headers(request), body, self.region)

    def _event(self, request: Request, body: bytes, authorizer: dict[str, Any] | None) -> dict[str, Any]:
        """The HTTP API payload 2.0 event API Gateway sends for this request (stage $default)."""
        now = time.time()
        headers = _forwarded(request)
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
                "rawQueryString": request.url.query, "headers": headers,
                "requestContext": context, "body": text, "isBase64Encoded": False} | _query_parameters(request)


def _query_parameters(request: Request) -> dict[str, Any]:
    """`queryStringParameters` as API Gateway sets it: present only with a query, repeated names comma-joined."""
    parameters: dict[str, list[str]] = {}
    for name, value in parse_qsl(request.url.query, keep_blank_values=True):
        parameters.setdefault(name, []).append(value)
    return {"queryStringParameters": {k: ",".join(v) for k, v in parameters.items()}} if parameters else {}


def _joined_headers(request: Request) -> dict[str, str]:
    """The request's headers, a repeated one's values joined by commas (as API Gateway passes them and as SigV4
    signs them)."""
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    return headers


def _forwarded(request: Request) -> dict[str, str]:
    """The request's headers as API Gateway passes them: duplicates joined, and its own X-Forwarded-* set.

    HTTP APIs move a client's X-Forwarded-* headers into a standard Forwarded header and set X-Forwarded-For,
    -Port and -Proto themselves, so the function can trust them: -Proto is the scheme the client used (always
    https on AWS, http on this front), which is where Mangum's ASGI scope takes its scheme from.
    """
    headers = _joined_headers(request)
    client = {name.removeprefix("x-forwarded-"): headers.pop(name)
              for name in [n for n in headers if n.startswith("x-forwarded-")]}
    moved = [f"{name}={client[name]}" for name in ("for", "host", "proto") if name in client]
    if moved:
        headers["forwarded"] = ";".join(moved)
    source = request.client.host if request.client else "127.0.0.1"
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    return {**headers, "x-forwarded-for": source, "x-forwarded-port": str(port),
            "x-forwarded-proto": request.url.scheme}


def _response(result: Mapping[str, Any]) -> Response:
    """The integration's answer as API Gateway returns it, WWW-Authenticate renamed as API Gateway renames it."""
    body = result.get("body") or ""
    content = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode()
    headers = {("x-amzn-remapped-www-authenticate" if k.lower() == "www-authenticate" else k): v
               for k, v in (result.get("headers") or {}).items() if k.lower() != "content-length"}
    return Response(content, status_code=int(result.get("statusCode", 200)), headers=headers)
