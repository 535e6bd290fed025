"""auth://status under the local credential chain, with moto standing in for STS."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry

LOCAL = Settings(mode="local")


def read(uri: str, settings: Settings = LOCAL) -> dict:
    reader = ResourceReader(registry, settings)
    reading = anyio.run(reader.read, uri, lambda: resolve_caller(None, settings))
    return json.loads(reading.text)


@pytest.mark.usefixtures("aws")
def test_status_reports_the_caller_identity_and_no_secret() -> None:
    status = read("auth://status")
    assert status["authenticated"] is True
    assert status["auth_mode"] == "local"
    assert status["account"] == "123456789012"
    assert status["principal_arn"].startswith("arn:aws:")
    assert "testing" not in json.dumps(status)  # the access key id and secret of the test env
    assert re.fullmatch(r"[0-9a-f]{32}", status["identity_digest"]), "a hash of who, what caches key on"
    assert read("auth://status")["identity_digest"] == status["identity_digest"], "stable for one principal"


def test_status_has_the_same_shape_in_every_mode() -> None:
    """auth://status shows the identity digest in every mode, None when nobody was authenticated."""
    local = read("auth://status", Settings(mode="local"))
    hosted = read("auth://status", Settings(mode="lambda", auth_mode="iam"))
    assert set(local) == set(hosted) == {"authenticated", "auth_mode", "region", "principal_arn", "account",
                                         "user_id", "credential_expiry", "identity_digest", "session_name_pinned",
                                         "workflows_scope", "reason", "accounts"}
    assert hosted["identity_digest"] is None


@pytest.mark.usefixtures("aws", "no_credentials")
def test_status_without_credentials_is_a_clean_not_authenticated() -> None:
    status = read("auth://status")
    assert status == status | {"authenticated": False, "principal_arn": None, "account": None, "identity_digest": None}
    assert "no credentials" in status["reason"]


def test_status_when_sts_rejects_the_credentials_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # No moto here: point STS at a closed loopback port so the call fails fast, never reaching AWS.
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    status = read("auth://status", Settings(mode="local", max_attempts=1, aws_call_timeout_seconds=1))
    assert status["authenticated"] is False
    assert "sts:GetCallerIdentity" in status["reason"]


def test_hosted_status_makes_no_aws_call_and_refuses_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr("botocore.client.BaseClient._make_api_call",
                        lambda self, name, params: calls.append(name))
    status = read("auth://status", Settings(mode="lambda", auth_mode="iam"))
    assert status["authenticated"] is False and status["auth_mode"] == "iam"
    assert calls == []


def test_filesystem_status_describes_the_temp_dir() -> None:
    status = read("auth://filesystem/status")
    assert status["temp_writable"] is True
    assert isinstance(status["temp_free_mib"], int)
    assert set(status) >= {"home_writable", "root_read_only"}


def test_a_broken_local_profile_is_a_clean_not_authenticated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_PROFILE", "no-such-profile")
    status = read("auth://status")
    assert status["authenticated"] is False
    assert "no-such-profile" in status["reason"]


@pytest.mark.usefixtures("aws")
def test_the_profile_region_is_the_callers_region(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("[profile analytics]\nregion = eu-west-1\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "analytics")
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    status = read("auth://status")
    assert status["authenticated"] is True
    assert status["region"] == "eu-west-1"
