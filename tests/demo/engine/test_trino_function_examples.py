"""The demo computes as Trino does, judged by an oracle it did not write: the examples of Trino's documentation
that state their result (trino_function_examples.json, read from the functions pages of trinodb/trino), each run
through the demo's Athena (StartQueryExecution, GetQueryResults). Each answers the documented result, or is refused
by name as beyond the demo (``NOT_SUPPORTED: <function> in the demo``); none answers another value, and none fails
with other words. An example the page says fails must fail.
"""

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from aws_data_mcp_demo.engine import athena as athena_engine
from support.trino_examples import equal, examples

RESULTS = "trino-examples"
EXAMPLES = examples()


@pytest.fixture(scope="module")
def athena() -> Iterator[Any]:
    with mock_aws():
        session = boto3.Session(aws_access_key_id="docs", aws_secret_access_key="docs", region_name="us-east-1")
        session.client("s3").create_bucket(Bucket=RESULTS)
        client = session.client("athena")
        client.create_work_group(Name="docs", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/"}, "EnforceWorkGroupConfiguration": True})
        athena_engine.install()
        pacing = athena_engine.PACING
        athena_engine.PACING = athena_engine.Pacing(queued_seconds=0.0, running_seconds=0.0)
        try:
            yield client
        finally:
            athena_engine.PACING = pacing
            athena_engine.uninstall()


def _answer(athena: Any, sql: str) -> tuple[str, Any]:
    """("SUCCEEDED", (type, text of the first value)) or ("FAILED", reason)."""
    execution_id = athena.start_query_execution(QueryString=sql, WorkGroup="docs")["QueryExecutionId"]
    while True:
        status = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]["Status"]
        if status["State"] not in ("QUEUED", "RUNNING"):
            break
        time.sleep(0.01)
    if status["State"] != "SUCCEEDED":
        return status["State"], status.get("StateChangeReason", "")
    result = athena.get_query_results(QueryExecutionId=execution_id)["ResultSet"]
    value = result["Rows"][1]["Data"][-1].get("VarCharValue") if len(result["Rows"]) > 1 else None
    return "SUCCEEDED", (result["ResultSetMetadata"]["ColumnInfo"][-1]["Type"], value)


def _verdict(athena: Any, example: dict[str, Any]) -> str:
    state, answer = _answer(athena, example["sql"])
    if state == "FAILED" and answer.startswith("NOT_SUPPORTED: ") and " in the demo" in answer:
        return "refused"
    if example.get("fails"):
        return "failed as documented" if state == "FAILED" else f"answered {answer!r} where Trino fails"
    if state != "SUCCEEDED":
        return f"{state}: {answer}"
    athena_type, value = answer
    return "equal" if equal(value, athena_type, example["result"]) else f"answered {value!r} ({athena_type})"


def test_the_documented_examples_are_many_and_attributed() -> None:
    assert len(EXAMPLES) >= 200
    assert all(example["sql"] and ("result" in example or example.get("fails")) for example in EXAMPLES)


def test_each_documented_example_is_answered_as_documented_or_refused_by_name(athena: Any) -> None:
    verdicts = {f"{example['file']}:{example['line']} {example['sql']}": _verdict(athena, example)
                for example in EXAMPLES}
    counts = Counter(v if v in ("equal", "refused", "failed as documented") else "other" for v in verdicts.values())
    print(f"Trino's documented examples: {len(EXAMPLES)}, {dict(counts)}")
    assert {where: v for where, v in verdicts.items()
            if v not in ("equal", "refused", "failed as documented")} == {}
    assert counts["equal"] >= 150  # most are computed, not refused


@pytest.mark.parametrize(("sql", "value"), [
    ("SELECT 7 / 2", "3"), ("SELECT -7 / 2", "-3"), ("SELECT 1034 / 7161", "0"), ("SELECT 7.0 / 2", "3.5"),
    ("SELECT format('%.2f', 3.14159)", "3.14"),
    ("SELECT avg(CAST(x AS DECIMAL(3, 2))) FROM (VALUES 1.10, 2.25) AS t(x)", "1.68"),
    ("SELECT cardinality(MAP(ARRAY['a', 'b'], ARRAY[1, 2]))", "2"),
    ("SELECT to_iso8601(DATE '2020-05-11')", "2020-05-11"),
    ("SELECT to_iso8601(TIMESTAMP '2020-05-11 11:15:05.055')", "2020-05-11T11:15:05.055"),
    ("SELECT k || '=' || CAST(v AS VARCHAR) FROM UNNEST(MAP(ARRAY['a'], ARRAY[1])) AS t(k, v)", "a=1"),
])
def test_the_demo_computes_as_trino(athena: Any, sql: str, value: str) -> None:
    assert _answer(athena, sql)[1][1] == value


@pytest.mark.parametrize(("sql", "reason"), [
    ("SELECT 'abc' ILIKE 'A%'", "SYNTAX_ERROR: line 1:14: mismatched input 'ILIKE'"),
    ("SELECT 'abc'[1]", "TYPE_MISMATCH: line 1:8: Cannot use integer for subscript of varchar(3)"),
    ("SELECT '2020-01-01' = DATE '2020-01-01'", "TYPE_MISMATCH: line 1:21: Cannot apply operator: varchar(10) = date"),
    ("SELECT 1 / 0", "DIVISION_BY_ZERO: Division by zero"),
    ("SELECT no_such_function(1)", "FUNCTION_NOT_FOUND: line 1:8: Function 'no_such_function' not registered"),
    ("SELECT typeof(1)", "NOT_SUPPORTED: typeof in the demo"),
])
def test_the_demo_refuses_as_trino_in_athenas_words(athena: Any, sql: str, reason: str) -> None:
    state, answer = _answer(athena, sql)
    assert state == "FAILED"
    assert answer.startswith(reason)
