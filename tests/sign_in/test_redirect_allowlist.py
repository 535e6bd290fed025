"""The operator's redirect-URI allowlist is matched part by part: `*` never reaches across the host into the path,
nor across `/` in a path, so a signed-in user's authorization code goes nowhere the operator did not name. Each URI
is registered through the registration function's Lambda entry, configured as the template configures it; a refusal
calls Cognito not at all. A pattern that could span parts stops the function at its first request, naming the
setting."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from aws_data_mcp.sign_in import lambda_entries
from aws_data_mcp.sign_in.registration import RegistrationPolicy

from .conftest import FACADE_CALLBACK, Pool, attach_recorder
from .test_registration import clients, hostile, registration_event

PATTERNS = ("https://*.corp.example/callback", "https://app.example/oauth/*/done", "http://localhost:*",
            "http://127.0.0.1:*", "http://[::1]:*", "https://claude.ai/api/mcp/auth_callback",
            "cursor://anysphere.cursor-mcp/oauth/callback", "https://tenant.example/cb?tenant=a")


@pytest.fixture(name="module_entry", scope="module")
def module_entry_fixture(cognito_session: boto3.Session) -> Iterator[Pool]:
    """The Lambda entry with PATTERNS as its allowlist, on one moto pool for the module (a pool and a client per
    URI took half a second)."""
    with pytest.MonkeyPatch.context() as env, mock_aws():
        env.setenv("AWS_DEFAULT_REGION", "us-east-1")
        client = cognito_session.client("cognito-idp")
        pool_id = client.create_user_pool(PoolName="aws-data-mcp")["UserPool"]["Id"]
        env.setenv("REGISTRATION_USER_POOL_ID", pool_id)
        env.setenv("REGISTRATION_REDIRECT_PATTERNS", ",".join(PATTERNS))
        lambda_entries.policy.cache_clear()
        lambda_entries.cognito_client.cache_clear()
        pool = Pool(client, RegistrationPolicy(pool_id, ()))
        attach_recorder(lambda_entries.cognito_client(), pool)
        yield pool
    lambda_entries.policy.cache_clear()
    lambda_entries.cognito_client.cache_clear()


@pytest.fixture(name="entry")
def entry_fixture(module_entry: Pool) -> Iterator[Pool]:
    """The module's entry with no client registered and no call recorded yet."""
    yield module_entry
    for made in clients(module_entry):
        module_entry.client.delete_user_pool_client(UserPoolId=module_entry.policy.user_pool_id,
                                                    ClientId=made["ClientId"])
    module_entry.calls.clear()
    module_entry.brandings.clear()
    lambda_entries.policy.cache_clear()


def registered(uri: str) -> dict[str, object]:
    answer = lambda_entries.register_handler(registration_event(hostile([uri])), None)
    return {"status": answer["statusCode"], **json.loads(answer["body"])}


@pytest.mark.parametrize("uri", [
    "https://a.corp.example/callback",
    "https://a.b.corp.example/callback",  # `*` is one or more whole labels
    "https://A.Corp.EXAMPLE/callback",  # host names are case-insensitive
    "HTTPS://a.corp.example/callback",
    "https://a.corp.example:443/callback",  # https's own port, written out
    "https://xn--bcher-kva.corp.example/callback",  # an IDN as DNS carries it (punycode)
    "https://app.example/oauth/vscode-1.2_x~/done",  # `*` inside one path segment
    "http://localhost:53682/callback",  # loopback: any port, any path (RFC 8252 section 7.3)
    "http://localhost/",
    "http://127.0.0.1:33418/",
    "http://[::1]:8080/cb",
    "http://[0:0:0:0:0:0:0:1]:8080/cb",  # the same address written out
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "https://tenant.example/cb?tenant=a",  # the pattern's own query, exactly
])
def test_a_uri_the_allowlist_names_is_registered(entry: Pool, uri: str) -> None:
    answer = registered(uri)
    assert answer["status"] == 201, answer
    assert clients(entry)[0]["CallbackURLs"] == [uri, FACADE_CALLBACK]


@pytest.mark.parametrize("uri", [
    "https://evil.example/.corp.example/callback",  # the review's finding: `*` ran over the host into the path
    "https://evil.example/a.corp.example/callback",
    "https://evil.example?.corp.example/callback",
    "https://evil.example#.corp.example/callback",
    "https://corp.example/callback",  # `*` is at least one label
    "https://corp.example.evil/callback",
    "https://evilcorp.example/callback",
    "https://a.corp.example.evil.example/callback",
    "https://good.corp.example@evil.example/callback",  # a user name, then the host the browser goes to
    "https://evil.example@good.corp.example/callback",
    "https://evil.example\\.corp.example/callback",  # browsers read `\` as `/`
    "https://evil.example\\@a.corp.example/callback",
    "https://evil.example%2F.corp.example/callback",  # percent-encoded slash and dot in a host
    "https://evil.example%2e.corp.example/callback",
    "https://[fe80::1%25a.corp.example]/callback",  # an IPv6 zone that ends like the name
    "https://a.corp.example./callback",  # trailing dot
    "https://a..corp.example/callback",
    "https://b\u00fccher.corp.example/callback",  # an IDN in Unicode
    "https://evil.example\u3002corp.example/callback",  # an ideographic full stop, which IDNA maps to `.`
    "https://a.corp.example:8443/callback",
    "https://a.corp.example:443.evil.example/callback",
    "https://a.corp.example/callback#fragment",
    "https://a.corp.example/callback?next=https://evil.example",
    "https://a.corp.example//callback",
    "https://a.corp.example/Callback",
    "https://a.corp.example/x/../callback",
    "http://a.corp.example/callback",  # the scheme is exact
    " https://a.corp.example/callback",
    "https://app.example/oauth/a/b/done",  # `*` never crosses `/`
    "https://app.example/oauth/a%2Fb/done",
    "https://app.example/oauth/%2E%2E/done",
    "https://app.example/oauth/../done",
    "https://app.example/oauth/./done",
    "https://app.example/oauth//done",
    "http://localhost:80@evil.example/callback",
    "http://localhost.evil.example:5000/callback",
    "http://127.0.0.1.evil.example:5000/",
    "http://localhost:5000\\@evil.example/",
    "http://localhost:5000//evil.example/callback",
    "http://localhost:5000/../callback",
    "http://localhost:5000/callback?code=x",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:0/",
    "http://127.1:5000/",
    "http://0x7f.0.0.1:5000/",
    "https://localhost:5000/callback",
    "http://[::1%25eth0]:5000/",
    "cursor://anysphere.cursor-mcp:1/oauth/callback",
    "cursor://evil@anysphere.cursor-mcp/oauth/callback",
    "https://claude.ai.evil.example/api/mcp/auth_callback",
    "https://claude.ai/api/mcp/auth_callback/../../evil",
    "https://tenant.example/cb?tenant=b",
    "https://tenant.example/cb?tenant=a&next=x",
    "https://tenant.example/cb",
])
def test_a_uri_outside_the_allowlist_is_refused_without_a_cognito_call(entry: Pool, uri: str) -> None:
    answer = registered(uri)
    assert answer["status"] == 400 and answer["error"] == "invalid_redirect_uri", answer
    assert "RegistrationRedirectPatterns" in str(answer["error_description"])
    assert entry.calls == []


@pytest.mark.parametrize(("pattern", "reason"), [
    ("https://*/callback", "first label"),
    ("*://app.example/callback", "scheme"),
    ("http*://app.example/callback", "scheme"),
    ("app.example/callback", "scheme"),
    ("https://a*.corp.example/callback", "first label"),
    ("https://corp.*.example/callback", "first label"),
    ("https://*.*.corp.example/callback", "first label"),
    ("https://*.example/callback", "two labels"),
    ("https://*.10.0.0.1/callback", "IP address"),
    ("https://*corp.example/callback", "first label"),
    ("https://user@app.example/callback", "user"),
    ("https://*@app.example/callback", "user"),
    ("https://app.example:*/callback", "loopback"),
    ("https://app.example:8*/callback", "port"),
    ("https://app.example./callback", "first label"),
    ("https://b\u00fccher.example/callback", "non-ASCII"),
    ("https://app.example\\callback", "backslash"),
    ("https://app.example/callback#done", "fragment"),
    ("https://app.example/callback?next=*", "query"),
    ("https://app.example/oauth/*%2F/done", "percent"),
])
def test_a_pattern_that_could_span_parts_stops_the_function_naming_the_setting(
        entry: Pool, monkeypatch: pytest.MonkeyPatch, pattern: str, reason: str) -> None:
    monkeypatch.setenv("REGISTRATION_REDIRECT_PATTERNS", f"http://localhost:*,{pattern}")
    lambda_entries.policy.cache_clear()  # as in a fresh container

    with pytest.raises(ValueError, match=r"RegistrationRedirectPatterns \(REGISTRATION_REDIRECT_PATTERNS\)") as error:
        lambda_entries.register_handler(registration_event(hostile(["http://localhost:5000/callback"])), None)

    assert repr(pattern) in str(error.value) and reason in str(error.value)
    assert entry.calls == []

