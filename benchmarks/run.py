"""Performance ratios against baselines measured in the same run. Not a test.

    .venv/bin/python benchmarks/run.py [--json] [--only cold,warm,...] [--profile] [--record]

--record (what `make bench` runs) writes the table between the markers of docs/performance.md and saves the
full JSON as benchmarks/results/<UTC timestamp>.json.

The machines are small and shared (2 cores, other test runs), so absolute times mean
little; every budgeted figure is a ratio to a baseline measured in the same run, in
alternating blocks, in fresh processes. Over-budget rows are reported, not failed: the exit
status is non-zero only when a measurement could not be made.

Measurements (names for --only):
  cold     fresh process to the first resources/read response vs `import boto3, mangum` + MCPServer
  warm     warm static read through the Lambda handler vs a bare SDK app serving the same text
  http     static reads by the SDK's client over one kept-alive local HTTP connection: `serve` vs a bare SDK
           app on uvicorn, each in a process of its own
  tool     get_resource(uri) vs resources/read of the same URI through the Lambda handler
  memory   current RSS after 1,000 warm invocations of every ready event, growth over the last 500
  manager  session manager held open per container vs a fresh one per invocation (bare SDK app)
  package  unzipped function + layer from `sam build`
  fanout   permissions://discover, athena://workgroups, athena://query/history against moto with 50 ms
           injected per AWS call, beside the sequential time (calls x 50 ms) and the floor (waves x 50 ms)
  accounts athena://databases?account=* over three accounts vs one account's read of the same view, against moto
           with 50 ms injected per AWS call (every account's calls)
  search   athena://databases and athena://search over 10,000 tables in 50 databases at 50 ms per AWS call, beside
           their floors (dependent waves x 50 ms) and listing every database's tables to find a column
  lakehouse an Iceberg table's explainer, its table resource and a Hive table's of 10 and 1,000 partitions at
           50 ms per AWS call, beside their floors (dependent waves x 50 ms); the table's calls at 1,000 vs 10
  query    an Athena result through `serve` (SDK client, one kept-alive local HTTP connection) vs a bare boto3 loop
           over GetQueryResults pages, both against the demo account's Athena: time to the first row, time to
           page 100,000 rows, and the server's RSS while it pages 1,000,000
  signin   the demo's sign-in from the client (the SDK's OAuth client, given the URL alone, signs a demo user in
           through the sign-in page, posted headless) to the first auth://status read, vs the same first read with
           the banner's static token; requests and AWS calls of each
  first    the first read of athena://query/history in a fresh process vs the same read warm (against moto), as a
           cold start runs and after an init phase's warm-up (SnapStart, provisioned concurrency), and a new
           caller's first read in a warm process
  guard    the read-only guard on a typical SELECT, a refused trick, a 250 KB read and a 300 KB statement vs one
           athena:GetWorkGroup against moto in the same process; its time on the issue's worst shapes near 256 KB
           (130,000-item IN list, 130,000-part a.a.a... chain, 130,000 columns; budget 1 s each) and on the largest
           statement it parses; another caller's read latency over HTTP while those are sent back to back (budget
           1.2 x idle + 50 ms)
  workflow a workflow update (update_step) with write tokens vs the same update written without them (as before
           issue 35), in the same moto table in this process, alternating in blocks; and the bytes each stores
  views    first paint of 1,000 rows by the query results view in headless Chromium, from the result handed over
           (budget 300 ms) and from the view's frame created (budget 400 ms), vs the same host painting a plain
           HTML table of the same rows (skipped, saying why, without Chromium or npm)
  instructions  (opt-in, needs valgrind, about a minute) user-space instructions of one cold start of
           each kind under callgrind: the same ratio without the noise
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import cold
import guard
import harness
import lakehouse
import package
import record
import views
import workflow_cost
from harness import REVISION_2025, REVISION_2026, Latency
from report import MB, Budget, Row, failure, megabytes, ms, seconds, table

Section = tuple[list[Row], dict[str, Any]]

COLD_BUDGET = Budget(1.10)
WARM_BUDGET = Budget(1.15)
LOCAL_HTTP_BUDGET = Budget(1.2)
TOOL_BUDGET = Budget(1.10)
RSS_BUDGET = Budget(160, "MB")
GROWTH_BUDGET = Budget(2, "MB")
PACKAGE_BUDGET = Budget(50, "MB")
PAGING_BUDGET = Budget(1.2)
CPU_BOUND_BUDGET = Budget(1.2)
RECOMMENDATIONS_CALLS_BEFORE = 960
"""AWS calls of one permissions://recommendations read against fanout.py's account on 2026-12-02, when every table
explainer asked every check again (issue 45: IAM's request budget)."""
RECOMMENDATIONS_CALLS_BUDGET = Budget(0.5)
ACCOUNTS_BUDGET = Budget(1.3)
SEARCH_DATABASES_BUDGET = Budget(0.5, "s")
SEARCH_WAVES_BUDGET = Budget(2, "waves")
QUERY_GROWTH_BUDGET = Budget(50, "MB")
QUERY_TIMEOUT_SECONDS = 1800
GUARD_REFUSAL_BUDGET = Budget(1.0)
WORKFLOW_TOKEN_BUDGET = Budget(1.1)
GUARD_SHAPE_BUDGET = Budget(1, "s")
STALL_BUDGET = Budget(1.0)
"""Another caller's read while the worst statements are guarded, over 1.2x its idle latency + 50 ms."""
FIRST_PAINT_BUDGET = Budget(300, "ms")
FIRST_OPEN_BUDGET = Budget(400, "ms")


def _latencies(raw: dict[str, Any]) -> dict[str, Latency]:
    return {name: Latency(**values) for name, values in raw["latency_ms"].items()}


def measure_cold(args: argparse.Namespace) -> Section:
    result = cold.measure(args.cold_runs)
    floor, imports, response = result.floor.median, result.ours_imports.median, result.ours_first_response.median
    best_floor, best_response = result.floor.best, result.ours_first_response.best
    rows = [
        Row(f"cold start to first resources/read, wall (median of {result.runs})", seconds(response.wall),
            seconds(floor.wall), response.wall / floor.wall, COLD_BUDGET,
            note="floor: fresh process, import boto3, mangum + MCPServer"),
        Row("cold start to first resources/read, CPU time (median)", seconds(response.cpu), seconds(floor.cpu),
            response.cpu / floor.cpu, note="same runs; CPU time swings less with neighbours' load"),
        Row(f"cold start to first resources/read, wall (best of {result.runs})", seconds(best_response.wall),
            seconds(best_floor.wall), best_response.wall / best_floor.wall,
            note="load only adds time: the least disturbed runs"),
        Row("  of which our imports (module init), wall (median)", seconds(imports.wall), seconds(floor.wall),
            imports.wall / floor.wall, note=f"first invocation: {(response.wall - imports.wall) * 1e3:.1f} ms"),
    ]
    raw = {name: [asdict(mark) for mark in series.marks] for name, series in
           (("floor", result.floor), ("ours_imports", result.ours_imports),
            ("ours_first_response", result.ours_first_response))}
    return rows, raw


def measure_instructions(args: argparse.Namespace) -> Section:
    counts = cold.instructions()
    name = "cold start to first resources/read, instructions"
    if counts is None:
        return [Row(name, "no valgrind", budget=COLD_BUDGET, note="apt-get install valgrind")], {}
    floor, ours, compiling = counts.floor, counts.ours, counts.ours_compiling
    rows = [Row(name, f"{ours / 1e9:.3f} G", f"{floor / 1e9:.3f} G", ours / floor, COLD_BUDGET,
                note="callgrind, one run each; user space only (not the kernel's file reads)"),
            Row("  ours with our sources compiled at import", f"{compiling / 1e9:.3f} G", f"{floor / 1e9:.3f} G",
                compiling / floor, note="no bytecode for our package (the floor's is kept): the compiler's share")]
    return rows, asdict(counts)


def _versus_bare(lat: dict[str, Latency], rev: str, measurement: str, note: str, budget: Budget) -> list[Row]:
    """Our static read against the bare SDK app's, on `rev`: the p50 ratio is budgeted, the p95 one beside it."""
    ours, bare = lat[f"ours/{rev}"], lat[f"bare/{rev}"]
    return [
        Row(f"{measurement} {rev}, p50", ms(ours.p50), ms(bare.p50), ours.p50 / bare.p50, budget,
            note=f"n={ours.n} each; {note}"),
        Row(f"{measurement} {rev}, p95", ms(ours.p95), ms(bare.p95), ours.p95 / bare.p95),
    ]


def measure_warm(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("warm", str(args.iterations))
    lat = _latencies(raw)
    rows: list[Row] = []
    for rev in (REVISION_2025, REVISION_2026):
        rows += _versus_bare(lat, rev, "warm static read", "bare SDK app, manager held", WARM_BUDGET)
        asgi, bare = lat.get(f"ours_asgi/{rev}"), lat[f"bare/{rev}"]
        if asgi is not None:  # the handler module exposes its Mangum adapter: split the overhead
            rows += [
                Row("  of which Powertools, p50", ms(lat[f"ours/{rev}"].p50 - asgi.p50),
                    note="lambda_handler - asgi_handler"),
                Row("  Mangum + our app without Powertools, p50", ms(asgi.p50), ms(bare.p50), asgi.p50 / bare.p50),
            ]
    return rows, raw


def measure_http(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("http", str(args.http_requests))
    lat = _latencies(raw)
    note = "SDK client, one kept-alive connection; `serve` vs bare SDK app on uvicorn"
    rows = [row for rev in (REVISION_2025, REVISION_2026)
            for row in _versus_bare(lat, rev, "local HTTP static read", note, LOCAL_HTTP_BUDGET)]
    return rows, raw


def measure_tool(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("tool", str(args.iterations))
    lat = _latencies(raw)
    rows: list[Row] = []
    for uri in harness.TOOL_URIS:
        tool, read = lat[f"tool/{uri}"], lat[f"read/{uri}"]
        rows += [
            Row(f"get_resource vs resources/read {uri}, p95", ms(tool.p95), ms(read.p95), tool.p95 / read.p95,
                TOOL_BUDGET, note=f"n={tool.n} each, through the Lambda handler"),
            Row(f"get_resource vs resources/read {uri}, p50", ms(tool.p50), ms(read.p50), tool.p50 / read.p50),
        ]
    return rows, raw


def measure_memory(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("memory", str(args.invocations))
    rss = raw["rss_bytes"]
    end, middle = rss[str(raw["invocations"])], rss[str(raw["invocations"] // 2)]
    rows = [
        Row(f"RSS after {raw['invocations']} warm invocations", megabytes(end), budget=RSS_BUDGET, checked=end / MB,
            note=f"VmRSS; {raw['events']} events cycled; {megabytes(rss['after_first_round'])} after one of each"),
        Row(f"RSS growth over the last {raw['invocations'] - raw['invocations'] // 2}", megabytes(end - middle),
            megabytes(middle), budget=GROWTH_BUDGET, checked=(end - middle) / MB, note="baseline: RSS at the midpoint"),
    ]
    return rows, raw


def measure_manager(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("manager", str(args.iterations))
    lat = _latencies(raw)
    rows: list[Row] = []
    for rev in (REVISION_2025, REVISION_2026):
        fresh, held = lat[f"fresh/{rev}"], lat[f"held/{rev}"]
        faster = "held" if held.p50 < fresh.p50 else "fresh"
        rows.append(Row(f"fresh manager per invocation vs held, {rev}, p50", ms(fresh.p50), ms(held.p50),
                        fresh.p50 / held.p50, note=f"{faster} is faster (bare SDK app)"))
    return rows, raw


def measure_package(args: argparse.Namespace) -> Section:
    size = package.measure()
    if not size.built:
        return [Row("package: function + layer unzipped", "not built", budget=PACKAGE_BUDGET, note="run sam build")], {}
    parts = ", ".join(f"{name} {megabytes(size_)}" for name, size_ in size.parts.items())
    row = Row("package: function + layer unzipped", megabytes(size.total), budget=PACKAGE_BUDGET,
              checked=size.total / MB, note=parts)
    return [row], {"bytes": size.parts}


def measure_fanout(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("fanout", str(args.fanout_repeats))
    delay = raw["delay_s"]
    rows: list[Row] = []
    for uri, result in raw["scenarios"].items():
        wall = harness.median(result["wall_s"])
        sequential, floor = result["calls"] * delay, result["waves"] * delay
        rows += [
            Row(f"{uri.split('?')[0]} over {result['size']}, wall (median of {len(result['wall_s'])})",
                seconds(wall), seconds(floor), wall / floor, budget=Budget(result["budget_s"], "s"), checked=wall,
                note=f"baseline: floor, {result['waves']} dependent waves x {delay * 1e3:.0f} ms; "
                     f"fan-out width {raw['width']}"),
            Row("  sequential / ours", seconds(sequential), seconds(wall), sequential / wall,
                note=f"{result['calls']} AWS calls x {delay * 1e3:.0f} ms, one at a time"),
        ]
        if uri == "permissions://recommendations":  # each AWS question asked once a read (reading/call_memo.py)
            before = RECOMMENDATIONS_CALLS_BEFORE
            rows.append(Row("  AWS calls, against 2026-12-02's", str(result["calls"]), str(before),
                            result["calls"] / before, RECOMMENDATIONS_CALLS_BUDGET,
                            note="every table explainer asked every workgroup check and policy read again then"))
    cpu = raw["cpu_bound"]
    ours, bare = harness.median(cpu["ours_s"]), harness.median(cpu["bare_s"])
    rows.append(Row(f"{cpu['uri']} at 0 ms per call, wall (median of {len(cpu['ours_s'])})", seconds(ours),
                    seconds(bare), ours / bare, CPU_BOUND_BUDGET,
                    note=f"bound by CPU: baseline a bare boto3 loop making the same calls one at a time "
                         f"({cpu['users']} users)"))
    return rows, raw


def measure_accounts(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("accounts", str(args.accounts_repeats))
    wall = {name: harness.median(values) for name, values in raw["wall_s"].items()}
    calls, delay = raw["calls"], raw["delay_s"] * 1e3
    size = f"{raw['databases']} databases of {raw['tables']} tables each"
    return [
        Row(f"athena://databases?account=* over {raw['accounts']} accounts, wall (median of "
            f"{len(raw['wall_s']['all'])})", seconds(wall["all"]), seconds(wall["home"]), wall["all"] / wall["home"],
            ACCOUNTS_BUDGET, note=f"baseline: the home account's athena://databases, same run; {size} per account, "
                                  f"{calls['all']} vs {calls['home']} AWS calls x {delay:.0f} ms"),
        Row("  vs one member account's (?account=lake)", seconds(wall["all"]), seconds(wall["lake"]),
            wall["all"] / wall["lake"], note=f"the caller's role session there made before timing; "
                                             f"{calls['lake']} AWS calls"),
    ], raw


def measure_search(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("search", str(args.search_repeats))
    delay, size = raw["delay_s"], f"{raw['tables']:,} tables in {raw['databases']} databases"
    databases, search, listed = raw["athena_databases"], raw["search"], raw["every_listing"]
    wall_databases, wall_search = harness.median(databases["wall_s"]), harness.median(search["wall_s"])
    return [
        Row(f"athena://databases over {size}, wall (median of {len(databases['wall_s'])})", seconds(wall_databases),
            seconds(databases["waves"] * delay), wall_databases / (databases["waves"] * delay),
            budget=SEARCH_DATABASES_BUDGET, checked=wall_databases,
            note=f"baseline: floor, {databases['waves']} dependent waves x {delay * 1e3:.0f} ms; "
                 f"{databases['calls']} AWS calls"),
        Row("athena://search?q=<a column name>, wall (median)", seconds(wall_search), seconds(2 * delay),
            wall_search / (2 * delay), budget=SEARCH_WAVES_BUDGET, checked=search["waves"],
            note=f"checked: dependent waves measured ({search['waves']}); baseline: 2 waves x "
                 f"{delay * 1e3:.0f} ms; {search['calls']} AWS calls"),
        Row("  every table with the column, reads", "1" if raw["search_one_read"] else "more",
            f"{listed['reads']}", 1 / listed["reads"], budget=Budget(1, "read"),
            checked=1 if raw["search_one_read"] else 2,
            note=f"found {raw['search_found']} of {raw['column_tables']} tables and {raw['search_saved_queries']} "
                 f"saved queries in {raw['search_chars']:,} characters; "
                 f"baseline: every database's table listing, page by page ({listed['chars']:,} characters, "
                 "no column named: each table read after)"),
        Row("  vs listing every table, wall", seconds(wall_search), seconds(listed["wall_s"]),
            wall_search / listed["wall_s"], note=f"{listed['calls']} AWS calls to list them"),
    ], raw


def measure_lakehouse(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("lakehouse", str(args.lakehouse_repeats))
    return lakehouse.rows(raw), raw


def measure_query(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("query", str(args.query_rounds), timeout=QUERY_TIMEOUT_SECONDS)
    first = {name: harness.median(values) for name, values in raw["first_row_s"].items()}
    paging = {name: harness.median(values) for name, values in raw["paging_s"].items()}
    memory, rounds, requests = raw["memory_bytes"], raw["rounds"], raw["requests"]
    growth = memory["peak"] - memory["start"]
    return [
        Row(f"query: athena_query to its first row (median of {rounds})", seconds(first["ours"]),
            seconds(first["bare"]), first["ours"] / first["bare"],
            note=f"{raw['paged_rows']:,}-row query over {raw['orders']:,} orders; baseline: boto3 Start, "
                 f"GetQueryExecution on the tool's poll schedule, first page; emulator pacing "
                 f"{raw['pacing_s'] * 1e3:.0f} ms a state"),
        Row(f"query: page {raw['paged_rows']:,} rows (median of {rounds})", seconds(paging["ours"]),
            seconds(paging["bare"]), paging["ours"] / paging["bare"], PAGING_BUDGET,
            note=f"athena://queries/{{id}} and next_uri, {requests['ours']} answers over one kept-alive connection "
                 f"vs boto3 GetQueryResults, {requests['bare']} pages of 1000; same execution"),
        Row("  vs boto3 with a GetQueryExecution per page", seconds(paging["ours"]), seconds(paging["bare_with_state"]),
            paging["ours"] / paging["bare_with_state"],
            note="a loop that also checks the state every page (the first answer checks it; later pages do not)"),
        Row(f"query: server RSS growth paging {memory['rows']:,} rows", megabytes(growth),
            megabytes(memory["start"]), budget=QUERY_GROWTH_BUDGET, checked=growth / MB,
            note=f"baseline: RSS after the first answer; peak {megabytes(memory['peak'])}, end "
                 f"{megabytes(memory['end'])}, {memory['answers']} answers"),
    ], raw


def measure_guard(args: argparse.Namespace) -> Section:
    raw = guard.measure(args.guard_repeats)
    call, timed, sizes = raw["aws_call_s"], raw["guard_s"], raw["bytes"]
    baseline = f"{call * 1e3:.3f} ms"
    return [
        Row("guard: a typical SELECT (join, comment, literals)", ms(timed["typical"] * 1e3), baseline,
            timed["typical"] / call, note="baseline: one athena:GetWorkGroup against moto in-process"),
        Row("guard: a refused trick (nested comment opener)", ms(timed["trick"] * 1e3), baseline,
            timed["trick"] / call, GUARD_REFUSAL_BUDGET, note="a refusal costs less than the call it saves"),
        Row(f"guard: a {sizes['large_256k'] / 1024:.0f} KB read (under Athena's 256 KB limit)",
            ms(timed["large_256k"] * 1e3), baseline, timed["large_256k"] / call,
            note="over the guard's token cap: refused while lexing, before parsing"),
        Row(f"guard: a {sizes['over_limit_300k'] / 1024:.0f} KB statement (refused by size)",
            ms(timed["over_limit_300k"] * 1e3), baseline, timed["over_limit_300k"] / call, GUARD_REFUSAL_BUDGET,
            note="refused before it is read"),
        _guard_first_query(raw),
        *_guard_shapes(raw),
    ], raw


def _guard_first_query(raw: dict[str, Any]) -> Row:
    first = raw["first_query"] = guard.measure_first_query()
    return Row("guard: a new container's first query (Trino's parser imported on it)", ms(first["first_s"] * 1e3),
               ms(first["second_s"] * 1e3), first["first_s"] / first["second_s"],
               note=f"baseline: the same statement again; importing the guard itself {first['import_s']:.2f} s "
                    "(not paid by a container that never queries)")


def measure_workflow(args: argparse.Namespace) -> Section:
    raw = workflow_cost.measure(args.workflow_iterations)
    lat, sizes = _latencies(raw), raw["stored_bytes"]
    ours, bare = lat["tokens"], lat["tokenless"]
    return [
        Row("workflow update with write tokens vs without, p50", ms(ours.p50), ms(bare.p50), ours.p50 / bare.p50,
            WORKFLOW_TOKEN_BUDGET, note=f"n={ours.n} each; update_step on a {raw['steps']}-step workflow, moto in "
            "process; baseline: get, apply, one conditional PutItem without tokens (as before versioned writes)"),
        Row("workflow update with write tokens vs without, p95", ms(ours.p95), ms(bare.p95), ours.p95 / bare.p95),
        Row("  stored workflow, bytes", f"{sizes['tokens']:,}", f"{sizes['tokenless']:,}",
            sizes["tokens"] / sizes["tokenless"], note="the body as stored; tokens add the same bytes to every one"),
    ], raw
def _guard_shapes(raw: dict[str, Any]) -> list[Row]:
    """The issue's worst shapes (refused by the token cap, before parsing), the largest statement the guard does
    parse, and another caller's read latency over HTTP while they are sent back to back."""
    shapes = guard.measure_shapes()
    stall = guard.measure_stall(60)
    raw["shapes"], raw["stall"] = shapes, stall
    rows = [Row(f"guard: {name} ({shapes['bytes'][name] / 1024:.0f} KB)", seconds(value), "1 s", value,
                GUARD_SHAPE_BUDGET, checked=value, note="the guard's own time: refused by its token cap")
            for name, value in shapes["guard_s"].items() if name != "largest_parsed"]
    largest = shapes["guard_s"]["largest_parsed"]
    rows.append(Row(f"guard: the largest statement it parses ({shapes['bytes']['largest_parsed'] / 1024:.0f} KB)",
                    seconds(largest), "1 s", largest,
                    note="info: just under the 10,000-token cap, parsed in full (Trino's grammar, then sqlglot), "
                         "then refused; off the loop"))
    allowed = 1.2 * stall["idle_ms"] + 50
    rows.append(Row("guard: another caller's read while the worst shapes are guarded", ms(stall["busy_ms"]),
                    f"{allowed:.1f} ms", stall["busy_ms"] / allowed, STALL_BUDGET,
                    note=f"baseline: 1.2 x idle {stall['idle_ms']:.1f} ms + 50 ms; "
                         f"{stall['statements_guarded']} statements guarded meanwhile"))
    return rows


def _sign_in_counts(runs: list[dict[str, Any]]) -> str:
    """Requests of the client (+ the browser's) and AWS calls, each distinct combination the runs had."""
    seen = sorted({(r["client_requests"], r["browser_requests"], sum(r["aws_calls"].values())) for r in runs})
    return " / ".join(f"{client} + {browser} requests, {aws} AWS" for client, browser, aws in seen)


def measure_signin(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("signin", str(args.signin_rounds))
    sign_in, static = raw["sign_in"], raw["static"]
    ours, bare = harness.median([r["s"] for r in sign_in]), harness.median([r["s"] for r in static])
    to_token = sorted({r["aws_calls_to_token"] for r in sign_in})
    return [
        Row(f"demo sign-in: URL to first read (median of {len(sign_in)})", seconds(ours), seconds(bare), ours / bare,
            note="SDK OAuth client: discovery, registration, PKCE, headless sign-in, token, read; baseline: the "
                 "banner's static token, same first read"),
        Row("  requests (client + browser) and AWS calls", _sign_in_counts(sign_in), _sign_in_counts(static),
            note=f"AWS calls until the token is issued: {', '.join(map(str, to_token))}"),
    ], raw


def measure_first(args: argparse.Namespace) -> Section:
    raw = harness.run_worker("first", str(args.first_samples), timeout=900)
    rows: list[Row] = []
    for kind, label in (("lazy", "as a cold start runs"), ("init", "after an init phase's warm-up")):
        samples = raw["samples"][kind]
        first, warm = (harness.median([s[name] for s in samples]) for name in ("first", "warm"))
        rows.append(Row(f"first read vs warm, {label} (median of {len(samples)})", seconds(first), seconds(warm),
                        first / warm, note=f"{raw['uri']}, {raw['executions']} executions in moto; fresh process "
                        "each, baseline: the same read warm in it"))
    samples = raw["samples"]["lazy"]
    new_caller, warm = (harness.median([s[name] for s in samples]) for name in ("new_caller", "warm"))
    rows.append(Row("  a new caller's first read vs warm", seconds(new_caller), seconds(warm), new_caller / warm,
                    note="a new session in a warm process (hosted, every caller has one): its principal, its "
                    "clients"))
    return rows, raw


def measure_views(args: argparse.Namespace) -> Section:
    name = "views: first paint of 1,000 rows, result handed over"
    reason = views.missing()
    if reason is not None:
        return [Row(name, "skipped", budget=FIRST_PAINT_BUDGET, note=reason)], {"skipped": reason}
    raw = views.measure(args.views_rounds)
    result, opened, plain = (harness.median(raw[key]) for key in ("result_ms", "open_ms", "plain_ms"))
    return [
        Row(f"{name} (median of {len(raw['result_ms'])})", ms(result), ms(plain), result / plain, FIRST_PAINT_BUDGET,
            checked=result, note=f"headless Chromium {raw['chromium']}, first contentful paint of the view's frame; "
            "baseline: the same host painting a plain HTML table of the same rows in the same frame, no view code"),
        Row("views: first paint of 1,000 rows, from the view's frame created (load, handshake, result)", ms(opened),
            ms(plain), opened / plain, FIRST_OPEN_BUDGET, checked=opened,
            note=f"query-results.html {raw['html_bytes'] / 1024:.1f} KB; medians from frame creation: "
            + ", ".join(f"{mark.removeprefix('view:')} {harness.median([m[mark] for m in raw['marks']]):.0f} ms"
                        for mark in ("view:script", "view:connected", "view:result", "view:rendered"))),
    ], raw


MEASUREMENTS: dict[str, Callable[[argparse.Namespace], Section]] = {
    "cold": measure_cold,
    "warm": measure_warm,
    "http": measure_http,
    "tool": measure_tool,
    "memory": measure_memory,
    "manager": measure_manager,
    "package": measure_package,
    "instructions": measure_instructions,
    "fanout": measure_fanout,
    "accounts": measure_accounts,
    "search": measure_search,
    "lakehouse": measure_lakehouse,
    "query": measure_query,
    "signin": measure_signin,
    "guard": measure_guard,
    "workflow": measure_workflow,
    "first": measure_first,
    "views": measure_views,
}
DEFAULT = ("cold", "warm", "http", "tool", "memory", "manager", "package", "fanout", "accounts", "search", "lakehouse",
           "first", "query", "signin", "guard", "workflow", "views")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--only", default=",".join(DEFAULT), help="comma-separated measurement names")
    parser.add_argument("--iterations", type=int, default=2000, help="timed calls per variant (warm, tool, manager)")
    parser.add_argument("--http-requests", type=int, default=500, help="timed local HTTP reads per variant")
    parser.add_argument("--cold-runs", type=int, default=15, help="fresh-process pairs for the cold start")
    parser.add_argument("--invocations", type=int, default=1000, help="warm invocations for the memory figure")
    parser.add_argument("--fanout-repeats", type=int, default=5, help="reads per fan-out resource")
    parser.add_argument("--accounts-repeats", type=int, default=7, help="reads per variant of the accounts figure")
    parser.add_argument("--search-repeats", type=int, default=3, help="reads per variant of the search figure")
    parser.add_argument("--lakehouse-repeats", type=int, default=5, help="reads per lakehouse resource")
    parser.add_argument("--first-samples", type=int, default=5, help="fresh processes per first-read variant")
    parser.add_argument("--query-rounds", type=int, default=5, help="alternating rounds of each query figure")
    parser.add_argument("--signin-rounds", type=int, default=5, help="rounds of the sign-in figure (3 users each)")
    parser.add_argument("--guard-repeats", type=int, default=200, help="timed guard calls per small statement")
    parser.add_argument("--workflow-iterations", type=int, default=200, help="timed updates per workflow variant")
    parser.add_argument("--views-rounds", type=int, default=10, help="alternating rounds of the first paint figure")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of warm static reads")
    parser.add_argument("--record", action="store_true",
                        help="write the table into docs/performance.md and the JSON into benchmarks/results/")
    args = parser.parse_args(argv)
    unknown = set(args.only.split(",")) - set(MEASUREMENTS)
    if unknown:
        parser.error(f"unknown measurement(s): {', '.join(sorted(unknown))}")
    return args


def _changed_options(args: argparse.Namespace) -> list[str]:
    """The counts given on the command line, other than their defaults (the run's header names them)."""
    defaults = vars(_parse([]))
    return [f"--{name.replace('_', '-')} {value}" for name, value in vars(args).items()
            if isinstance(value, int) and not isinstance(value, bool) and value != defaults[name]]


def _machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "arch": platform.machine(),
            "load_average": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    started, machine = time.monotonic(), _machine()
    rows: list[Row] = []
    raw: dict[str, Any] = {}
    failed = False
    for name in args.only.split(","):
        section_started = time.monotonic()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            section_rows, raw[name] = MEASUREMENTS[name](args)
        except (harness.WorkerError, RuntimeError, OSError) as exc:
            failed = True
            section_rows, raw[name] = [failure(name, exc)], {"error": str(exc)}
        rows += section_rows
        print(f"[bench] {name} done in {time.monotonic() - section_started:.1f} s", file=sys.stderr, flush=True)
    machine["load_average_end"] = os.getloadavg()
    elapsed = time.monotonic() - started
    if args.profile:
        raw["profile"] = harness.run_worker("profile")
    document = {"machine": machine, "elapsed_s": elapsed, "options": vars(args), "rows": [r.as_json() for r in rows],
                "raw": raw}
    if args.record:
        saved = record.record(document, rows, args.only, _changed_options(args))
        print(f"[bench] recorded in {record.PAGE.relative_to(harness.ROOT)} and {saved.relative_to(harness.ROOT)}",
              file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"aws-data-mcp benchmarks: Python {machine['python']}, {machine['cpus']} CPUs, load average "
              f"{machine['load_average'][0]:.2f} -> {machine['load_average_end'][0]:.2f}, {elapsed:.0f} s\n")
        print(table(rows))
        if args.profile:
            print("\ncProfile of warm static reads through lambda_handler:\n" + raw["profile"]["report"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
