"""Settings refuse what would act with the wrong credentials or expose them."""

from __future__ import annotations

import pytest

from aws_data_mcp.config import Settings


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::"])
def test_the_local_server_binds_loopback_only(host: str) -> None:
    with pytest.raises(ValueError, match="loopback only"):
        Settings(mode="local", host=host)


def test_on_lambda_the_mode_is_always_hosted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "aws-data-mcp")
    monkeypatch.setenv("AWS_DATA_MCP_MODE", "local")
    with pytest.raises(ValueError, match="function's own role"):
        Settings.from_env()
    monkeypatch.delenv("AWS_DATA_MCP_MODE")
    assert Settings.from_env().hosted


def test_hosted_auth_mode_local_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DATA_MCP_MODE", "lambda")
    monkeypatch.setenv("AWS_DATA_MCP_AUTH_MODE", "local")
    with pytest.raises(ValueError, match="own role"):
        Settings.from_env()


def test_the_cli_refuses_a_non_loopback_bind(capsys: pytest.CaptureFixture[str]) -> None:
    from aws_data_mcp.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--host", "0.0.0.0"])
    assert "loopback only" in capsys.readouterr().err
