"""A Lambda cold start loads what serving MCP needs, and nothing a first request never uses: every module imported at
init is time each cold start pays before its first answer (the cold start budget of docs/performance.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = "import json, sys, aws_data_mcp.handler; print(json.dumps(sorted(sys.modules)))"

LEFT_FOR_LATER = {
    "sqlglot": "the read-only guard's parser: the first athena_query",
    "antlr4": "the runtime of the parser of Trino's grammar the guard reads queries by: the first athena_query",
    "aws_data_mcp.guard.trino_sql.SqlBaseParser": "that parser (0.8 MB of generated code): the same",
    "jwt": "an oidc bearer's validation: the first oidc request",
    "aws_data_mcp.sign_in": "the deployed sign-in's own functions: the authorization server metadata at most",
    "sqlite3": "the local workflow store: never on Lambda",
    "difflib": "a not-found's nearest URIs",
    "aws_data_mcp.explainer.table_chain": "the first read of a table's explainer",
    "aws_data_mcp.explainer.bucket_chain": "the first read of a bucket's explainer",
    "aws_data_mcp.resources.athena.open_tables": "the first read of a table (its format's description)",
    "aws_data_mcp.lakehouse.iceberg": "the first read of an Iceberg table",
    "rich": "the SDK's log handler, which this server never installs (it configures logging itself)",
}


def test_a_cold_start_leaves_out_what_no_first_request_needs() -> None:
    env = {key: value for key, value in os.environ.items() if key != "AWS_LAMBDA_INITIALIZATION_TYPE"}
    env |= {"AWS_DATA_MCP_MODE": "lambda", "AWS_REGION": "us-east-1", "AWS_LAMBDA_FUNCTION_NAME": "cold-imports"}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert {"aws_data_mcp.resources.permissions.buckets", "aws_data_mcp.resources.permissions.tables"} <= loaded
    assert {name: why for name, why in LEFT_FOR_LATER.items() if name in loaded} == {}
