"""SnapStart: importing the Lambda entry creates no credentials, AWS clients or security-relevant randomness."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_importing_the_handler_draws_no_randomness_of_its_own_and_makes_no_session() -> None:
    probe = textwrap.dedent(
        """
        import os, boto3, botocore.session
        drawn = []
        real_urandom = os.urandom
        os.urandom = lambda n: drawn.append(n) or real_urandom(n)
        sessions = []
        real_init = botocore.session.Session.__init__
        def counting_init(self, *a, **k):
            sessions.append(1)
            real_init(self, *a, **k)
        botocore.session.Session.__init__ = counting_init
        # Libraries draw a few ids at import (OpenTelemetry context keys): the baseline, not ours.
        import mcp.server.mcpserver, mangum, aws_lambda_powertools.metrics, aws_lambda_powertools.logging
        import uvicorn, multiprocessing.process
        baseline = len(drawn)
        import aws_data_mcp.handler
        print(len(drawn) - baseline, len(sessions))
        """
    )
    env = {**os.environ, "AWS_DATA_MCP_MODE": "lambda"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    drawn, sessions = done.stdout.split()
    assert (drawn, sessions) == ("0", "0"), done.stderr


def test_request_state_still_round_trips_after_the_key_is_made() -> None:
    from aws_data_mcp.request_state import KeyedOnFirstUseCodec

    codec = KeyedOnFirstUseCodec()
    assert codec.unseal(codec.seal(b"state")) == b"state"
