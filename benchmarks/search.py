"""Finding the data in a large estate: run by `worker.py search` in a fresh process.

moto's server runs in a process of its own (as for `fanout`), its Glue seeded in that process (10,000 tables through
the API would take minutes): `DATABASES` databases of `TABLES` tables each, 11 columns with a comment on each and a
description on every table; `COLUMN_TABLES` of them hold a `contact_email` column; `SAVED_QUERIES` named queries.
Every AWS attempt waits 50 ms before reaching moto (`fanout.FarAwayEndpoint`, which replays each distinct request's
answer); the result cache is off, so each timed read makes every call it needs. Measured, each set beside a
baseline from the same run:

- athena://databases: its wall time and AWS calls, beside its floor (its dependent waves x 50 ms);
- athena://search?q=contact_email: its wall time, AWS calls and dependent waves (measured from the calls' start and
  end times), beside its floor, and whether one read found every table with the column within 20,000 characters;
- that search beside the way there was before it: reading every database's table listing, page by page (which
  still names no column: each table would then be read too).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import fanout
import harness

DATABASES = 50
TABLES = 200
COLUMN = "contact_email"
COLUMN_TABLES = 40
PAGE_CHARS = 20_000
SAVED_QUERIES = 40
"""Named queries in `primary`, a fifth of them reading the column: ListNamedQueries (one page: 50 ids a page, each
more page of a workgroup's saved queries would add a wave) beside SearchTables, then BatchGetNamedQuery (one call):
the search's second wave."""
SEED = f"""
import sys
from aws_data_mcp_demo.emulator.extensions import install_moto_extensions
from moto.glue.models import glue_backends
from moto.server import main
install_moto_extensions()
glue = glue_backends["123456789012"]["{fanout.REGION}"]
for d in range({DATABASES}):
    glue.create_database(f"zone_{{d:02d}}", {{"Name": f"zone_{{d:02d}}", "Description": f"zone {{d}} of the lake"}})
for n in range({DATABASES * TABLES}):
    database, name = f"zone_{{n % {DATABASES}:02d}}", f"t_{{n:05d}}"
    columns = [{{"Name": f"c{{c}}", "Type": "string", "Comment": f"measure {{c}} of {{name}}"}} for c in range(11)]
    if n % {DATABASES * TABLES // COLUMN_TABLES} == 7:
        columns[3] = {{"Name": "{COLUMN}", "Type": "string", "Comment": "where the customer asked to be written"}}
    glue.create_table(database, name, {{"Name": name, "Description": f"facts of {{name}}, one row per event",
        "Parameters": {{"classification": "parquet"}}, "PartitionKeys": [{{"Name": "dt", "Type": "string"}}],
        "StorageDescriptor": {{"Columns": columns, "Location": f"s3://lake/{{database}}/{{name}}/"}}}})
from moto.athena.models import athena_backends
athena = athena_backends["123456789012"]["{fanout.REGION}"]
for q in range({SAVED_QUERIES}):
    athena.create_named_query(f"saved {{q}}", "the team's question {{q}}", "zone_07",
                              f"SELECT {COLUMN} FROM t_{{q:05d}}" if q % 5 == 0 else f"SELECT c1 FROM t_{{q:05d}}",
                              "primary")
main(["-H", "127.0.0.1", "-p", sys.argv[1]])
"""


def dependent_waves(spans: list[tuple[float, float]]) -> int:
    """The longest chain of calls each started after the one before it ended: the round trips on the critical
    path, whatever ran beside them."""
    ordered = sorted(spans)
    longest: list[int] = []
    for index, (start, _) in enumerate(ordered):
        before = [longest[j] for j in range(index) if ordered[j][1] <= start]
        longest.append(1 + max(before, default=0))
    return max(longest, default=0)


def _timed(mcp: Any, endpoint: fanout.FarAwayEndpoint, uri: str, repeats: int) -> dict[str, Any]:
    import anyio

    anyio.run(mcp.read, uri, None)  # records moto's answers: replays cost moto nothing
    walls, waves = [], 0
    for _ in range(repeats):
        endpoint.calls.clear()
        endpoint.spans.clear()
        started = time.perf_counter()
        reading = anyio.run(mcp.read, uri, None)
        walls.append(time.perf_counter() - started)
        waves = max(waves, dependent_waves(endpoint.spans))
    return {"wall_s": sorted(walls), "calls": sum(endpoint.calls.values()), "by_operation": dict(endpoint.calls),
            "waves": waves, "text": reading.text}


def _every_listing(mcp: Any, endpoint: fanout.FarAwayEndpoint) -> dict[str, Any]:
    """Every database's table listing, page by page, as an agent without search would read them."""
    import anyio

    endpoint.calls.clear()
    started, reads, chars = time.perf_counter(), 0, 0
    for d in range(DATABASES):
        uri: str | None = f"athena://databases/zone_{d:02d}/tables"
        while uri:
            text = anyio.run(mcp.read, uri, None).text
            reads, chars = reads + 1, chars + len(text)
            uri = json.loads(text)["page"]["next_uri"]
    return {"wall_s": time.perf_counter() - started, "reads": reads, "chars": chars,
            "calls": sum(endpoint.calls.values())}


def measure(repeats: int) -> dict[str, Any]:
    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.resolve import local_chain

    server, port = harness.start_server([sys.executable, "-c", SEED], "moto's server")
    try:
        os.environ.update(AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}", AWS_ACCESS_KEY_ID="bench",
                          AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION=fanout.REGION, AWS_REGION=fanout.REGION)
        mcp = create_server(Settings(mode="local", cache_ttl_seconds=0, region=fanout.REGION))
        endpoint = fanout.FarAwayEndpoint()
        local_chain.reset()
        local_chain.session().events.register("before-send", endpoint)
        import anyio

        anyio.run(mcp.read, "auth://status", None)
        databases = _timed(mcp, endpoint, "athena://databases", repeats)
        search = _timed(mcp, endpoint, f"athena://search?q={COLUMN}", repeats)
        found = json.loads(search.pop("text"))
        databases.pop("text")
        listed = _every_listing(mcp, endpoint)
        tables = [h for h in found["hits"] if h["kind"] == "table"]
        if len(tables) != COLUMN_TABLES or found["page"]["next_uri"] is not None:
            raise AssertionError(f"the search found {len(tables)} of {COLUMN_TABLES} tables: {found['page']}")
        return {"delay_s": fanout.DELAY, "databases": DATABASES, "tables": DATABASES * TABLES,
                "column_tables": COLUMN_TABLES, "athena_databases": databases, "search": search,
                "search_found": len(tables),
                "search_saved_queries": sum(h["kind"] == "named_query" for h in found["hits"]),
                "search_one_read": found["page"]["next_uri"] is None,
                "search_chars": len(json.dumps(found, separators=(",", ":"))), "every_listing": listed}
    finally:
        server.kill()
