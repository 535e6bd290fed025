"""An init phase no request waits on (SnapStart's, provisioned concurrency's) prepares what first requests would pay
for, and stays snapshot-safe: no credential looked up, no security-relevant randomness drawn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent(
    """
    import json, os, botocore.session
    drawn = []
    real_urandom = os.urandom
    os.urandom = lambda n: drawn.append(n) or real_urandom(n)
    sessions = []
    real_init = botocore.session.Session.__init__
    def counting_init(self, *a, **k):
        sessions.append(1)
        real_init(self, *a, **k)
    botocore.session.Session.__init__ = counting_init
    looked_up = []
    real_get_credentials = botocore.session.Session.get_credentials
    def counting_get_credentials(self, *a, **k):
        looked_up.append(1)
        return real_get_credentials(self, *a, **k)
    botocore.session.Session.get_credentials = counting_get_credentials
    # Libraries draw a few ids at import (OpenTelemetry context keys): the baseline, not ours.
    import mcp.server.mcpserver, mangum, aws_lambda_powertools.metrics, aws_lambda_powertools.logging
    import uvicorn, multiprocessing.process
    baseline = len(drawn)
    import aws_data_mcp.handler as handler
    from aws_data_mcp import aws
    print(json.dumps({"drawn": len(drawn) - baseline, "sessions": len(sessions),
                      "credentials_looked_up": len(looked_up),
                      "models_parsed": aws._loader is not None,
                      "tools_registered": handler.app.server._tools_ready}))
    """
)


def _init(kind: str | None) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != "AWS_LAMBDA_INITIALIZATION_TYPE"}
    env |= {"AWS_DATA_MCP_MODE": "lambda", "AWS_REGION": "us-east-1"}
    if kind is not None:
        env["AWS_LAMBDA_INITIALIZATION_TYPE"] = kind
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("kind", ["snap-start", "provisioned-concurrency"])
def test_an_init_phase_ahead_of_requests_prepares_tools_and_models_without_credentials_or_randomness(
        kind: str) -> None:
    prepared = _init(kind)
    del prepared["sessions"]  # parsing the models takes a botocore session: one with no credentials looked up
    assert prepared == {"drawn": 0, "credentials_looked_up": 0, "models_parsed": True, "tools_registered": True}


@pytest.mark.parametrize("kind", ["on-demand", None])
def test_a_cold_start_makes_no_session_and_leaves_tools_and_models_to_the_requests(kind: str | None) -> None:
    assert _init(kind) == {"drawn": 0, "sessions": 0, "credentials_looked_up": 0, "models_parsed": False,
                           "tools_registered": False}
