"""The local credential chain under a badly behaved credential helper: clean refusals, no leaks, one helper run."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.identity.resolve import resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry

LOCAL = Settings(mode="local")


def with_helper(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, script: str) -> Path:
    helper = tmp_path / "helper.py"
    helper.write_text(script)
    config = tmp_path / "config"
    config.write_text(f"[profile helper]\ncredential_process = {sys.executable} {helper}\nregion = us-east-1\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "helper")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    return tmp_path / "runs"


def status() -> dict[str, Any]:
    reader = ResourceReader(registry, LOCAL)
    return json.loads(anyio.run(reader.read, "auth://status", lambda: resolve_caller(None, LOCAL)).text)


@pytest.mark.parametrize("script", [
    "print('not json at all: sk-SECRET-FROM-HELPER')",
    "import sys; sys.stderr.write('token=sk-SECRET-FROM-HELPER'); sys.exit(3)",
])
def test_a_broken_helper_is_a_clean_not_authenticated_without_its_output(
    script: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_helper(monkeypatch, tmp_path, script)
    answer = status()
    assert answer["authenticated"] is False and "credential chain failed" in answer["reason"]
    assert "SECRET" not in json.dumps(answer)


def test_concurrent_first_reads_run_the_helper_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with_helper(monkeypatch, tmp_path, f"""
import json, time
with open({str(runs)!r}, "a") as out:
    out.write("run\\n")
time.sleep(0.5)
print(json.dumps({{"Version": 1, "AccessKeyId": "AKIAHELPER", "SecretAccessKey": "helper-secret"}}))
""")
    answers: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda: answers.append(status())) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 12 and all(a["authenticated"] for a in answers)
    assert runs.read_text().count("run") == 1


def test_template_name_completion_needs_no_caller(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with_helper(monkeypatch, tmp_path, f"open({str(runs)!r}, 'a').write('run'); import time; time.sleep(30)")
    reader = ResourceReader(registry, LOCAL)
    spec = registry.get("metadata://templates/{template}")
    assert spec is not None
    values = anyio.run(reader.complete, spec, "template", {}, "ath", lambda: resolve_caller(None, LOCAL))
    assert values == ["athena-table"] and not runs.exists()


def test_a_helper_slower_than_the_deadline_holds_one_thread_and_every_read_is_answered_by_its_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The issue's attack, scaled down: 150 concurrent reads while a credential_process runs until the test lets it
    end (far beyond the request's budget). One helper run; every read answered while the helper still runs, with a
    structured, retryable error carrying nothing the helper wrote; the threads the reads took come back while it
    runs, and its own once it is done."""
    runs, release, budget, reads = tmp_path / "runs", tmp_path / "release", 0.5, 150
    with_helper(monkeypatch, tmp_path, f"""
import json, os, sys, time
with open({str(runs)!r}, "a") as out:
    out.write("run\\n")
sys.stderr.write("token=sk-SECRET-FROM-HELPER")
for _ in range(1200):  # until the test releases it (a minute at most)
    if os.path.exists({str(release)!r}):
        break
    time.sleep(0.05)
print(json.dumps({{"Version": 1, "AccessKeyId": "AKIAHELPER", "SecretAccessKey": "helper-secret"}}))
""")
    settings = Settings(mode="local", request_timeout_seconds=budget)
    reader = ResourceReader(registry, settings)
    failures: list[ResourceFailure | None] = []

    async def read_once() -> None:
        try:
            await reader.read("athena://workgroups", lambda: resolve_caller(None, settings))
            failures.append(None)
        except ResourceFailure as failure:
            failures.append(failure)

    async def read_all() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(reads):
                group.start_soon(read_once)

    def threads_within(limit: int, seconds: float = 30) -> bool:
        until = time.monotonic() + seconds
        while threading.active_count() > limit and time.monotonic() < until:
            time.sleep(0.05)
        return threading.active_count() <= limit

    before = threading.active_count()
    anyio.run(read_all)  # returns only once every read is answered: the helper cannot have ended yet
    # While the helper still runs, the waiters' threads are back (idle workers stop with the event loop).
    assert threads_within(before + 1), "only the thread running the helper remains"
    assert len(failures) == reads
    assert all(f is not None and f.retryable and f.code.value in ("authentication_required", "timeout")
               for f in failures), {f.code.value if f else None for f in failures}
    assert "SECRET" not in json.dumps([f.payload() for f in failures if f is not None])
    release.touch()
    assert threads_within(before), "the helper ended, and its thread with it"
    assert runs.read_text().count("run") == 1
