"""What a newcomer meets in the oidc demo: the README's Python snippets, run as written (the static-token one with a
caller's token from the banner, the sign-in one with a person choosing a user on the demo's sign-in page: the
browser and the pasted address are the only parts played by the test), and a terminal of readable lines."""

from __future__ import annotations

import builtins
import json
import re
import webbrowser
from pathlib import Path
from urllib.parse import urlparse

import httpx2
import pytest

from aws_data_mcp_demo.front.authorization_server import SIGN_IN_PATH
from support.readme import readme_blocks

README_URL = "http://127.0.0.1:8000/mcp"


def snippet(name: str, url: str) -> str:
    """The README's snippet that uses `name`, pointed at this run's demo instead of the README's port."""
    [code] = [block for block in readme_blocks("python") if name in block]
    assert README_URL in code
    return code.replace(README_URL, url)


def printed_status(output: str) -> dict[str, object]:
    return json.loads(output.splitlines()[0])


def test_the_token_snippet_reads_as_the_token_s_caller(oidc_demo: tuple[str, dict[str, str]],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    url, tokens = oidc_demo
    monkeypatch.setenv("MCP_TOKEN", tokens["alice"])
    exec(snippet("MCP_TOKEN", url), {"__name__": "__main__"})
    output = capsys.readouterr().out
    assert str(printed_status(output)["principal_arn"]).endswith("assumed-role/demo-analyst-role/alice")
    assert "athena_query" in output.splitlines()[1]


class SignInPage:
    """The person at the browser: opens the authorization address, chooses `user`, and keeps where the browser
    was sent back to, for the snippet's prompt."""

    def __init__(self, user: str) -> None:
        self.user, self.ended_on = user, ""

    def open(self, address: str) -> bool:
        with httpx2.Client(timeout=30) as browser:
            page = browser.get(address, follow_redirects=True)
            assert urlparse(str(page.url)).path == SIGN_IN_PATH, page.text
            request = re.search(r'name="request" value="([^"]+)"', page.text)
            assert request is not None
            chosen = browser.post(page.url.join(SIGN_IN_PATH), data={"request": request[1], "user": self.user})
        assert chosen.status_code == 303
        self.ended_on = chosen.headers["location"]
        return True

    def paste(self, _prompt: str) -> str:
        return self.ended_on


def test_the_sign_in_snippet_reads_as_the_person_who_signed_in(oidc_demo_banner: tuple[str, str],
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = oidc_demo_banner
    person = SignInPage("bob")
    monkeypatch.setattr(webbrowser, "open", person.open)
    monkeypatch.setattr(builtins, "input", person.paste)
    exec(snippet("OAuthClientProvider", url), {"__name__": "__main__"})
    status = printed_status(capsys.readouterr().out)
    assert str(status["principal_arn"]).endswith("assumed-role/demo-admin-role/bob")


def test_the_terminal_shows_each_token_once_and_the_metrics_go_to_a_file(
        oidc_demo_banner: tuple[str, str], oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, banner = oidc_demo_banner
    _, tokens = oidc_demo
    assert all(banner.count(token) == 1 for token in tokens.values())
    metrics = re.search(r"^Metrics: .* goes to (\S+)$", banner, re.M)
    assert metrics is not None
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "config://security"}}
    answer = httpx2.post(url, json=read, timeout=30, headers={
        "authorization": f"Bearer {tokens['carol']}", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25"})
    assert answer.status_code == 200, answer.text
    lines = [json.loads(line) for line in Path(metrics[1]).read_text().splitlines()]
    assert any(line.get("uri") == "config://security" and "_aws" in line for line in lines)
