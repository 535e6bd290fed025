"""In-process measurements, each run by `run.py` in a fresh process: `python benchmarks/worker.py NAME [N]`.

Prints one JSON object on the original stdout; everything the handler itself prints (EMF
metric lines) goes to /dev/null. A worker first checks that every variant it times returns
the expected response, because timing a fast error page would make any ratio meaningless.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import sys
import traceback
from collections.abc import Callable
from typing import Any

import harness
from harness import REVISION_2025, REVISION_2026

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def _context() -> Any:
    from aws_data_mcp.transport.lambda_context import LocalLambdaContext

    return LocalLambdaContext(aws_request_id="benchmark")


def _ours() -> tuple[Handler, Handler | None]:
    """Our Lambda entry, and the Mangum adapter under it without the Powertools decorators (if exposed)."""
    from aws_data_mcp import handler

    return handler.lambda_handler, getattr(handler, "asgi_handler", None)


def _body(response: dict[str, Any]) -> dict[str, Any]:
    if response.get("statusCode") != 200 or response.get("isBase64Encoded"):
        raise AssertionError(f"unexpected response: {response!r:.400}")
    body: dict[str, Any] = json.loads(response["body"])
    if "result" not in body:
        raise AssertionError(f"JSON-RPC error instead of a result: {body!r:.400}")
    return body


def _read_text(response: dict[str, Any]) -> str:
    return str(_body(response)["result"]["contents"][0]["text"])


def _tool_text(response: dict[str, Any]) -> str:
    result = _body(response)["result"]
    if result.get("isError"):
        raise AssertionError(f"get_resource returned an error: {result!r:.400}")
    return str(result["content"][0]["text"])


def _call(handler: Handler, event: dict[str, Any], context: Any) -> Callable[[], object]:
    return lambda: handler(event, context)


def warm(iterations: int) -> dict[str, Any]:
    """Measurement 2: a static read through our handler vs the bare SDK app, both revisions.

    `ours_asgi` (Mangum and our ASGI app, without the Powertools decorators) splits our
    overhead into "Powertools" and "our ASGI/MCP layers" for the analysis.
    """
    import baseline

    lambda_handler, asgi_handler = _ours()
    context = _context()
    events = {rev: harness.read_event(baseline.URI, rev) for rev in (REVISION_2025, REVISION_2026)}
    text = _read_text(lambda_handler(events[REVISION_2025], context))
    bare, holder = baseline.held_handler(text)
    handlers: dict[str, Handler] = {"ours": lambda_handler, "bare": bare}
    if asgi_handler is not None:
        handlers["ours_asgi"] = asgi_handler
    try:
        variants: dict[str, Callable[[], object]] = {}
        for rev, event in events.items():
            for name, handler in handlers.items():
                if _read_text(handler(event, context)) != text:
                    raise AssertionError(f"{name} does not serve the same text as our handler ({rev})")
                variants[f"{name}/{rev}"] = _call(handler, event, context)
        latencies = harness.interleave(variants, iterations=iterations, block=50, warmup=200)
    finally:
        holder.close()
    return {"latency_ms": harness.latencies_json(latencies)}


def tool(iterations: int) -> dict[str, Any]:
    """Measurement 3: `get_resource(uri)` vs `resources/read` of the same URI, static and templated."""
    lambda_handler, _ = _ours()
    context = _context()
    variants: dict[str, Callable[[], object]] = {}
    for uri in harness.TOOL_URIS:
        read, call = harness.read_event(uri), harness.get_resource_event(uri)
        if _read_text(lambda_handler(read, context)) != _tool_text(lambda_handler(call, context)):
            raise AssertionError(f"get_resource and resources/read differ for {uri}")
        variants[f"read/{uri}"] = _call(lambda_handler, read, context)
        variants[f"tool/{uri}"] = _call(lambda_handler, call, context)
    latencies = harness.interleave(variants, iterations=iterations, block=50, warmup=200)
    return {"latency_ms": harness.latencies_json(latencies)}


def manager(iterations: int) -> dict[str, Any]:
    """Measurement 5: one session manager held open per process vs a fresh one per invocation."""
    import baseline

    context = _context()
    held, fresh, holder = baseline.manager_strategy_handlers('{"bare":true}')
    events = {rev: harness.read_event(baseline.URI, rev) for rev in (REVISION_2025, REVISION_2026)}
    try:
        variants: dict[str, Callable[[], object]] = {}
        for rev, event in events.items():
            for name, handler in (("held", held), ("fresh", fresh)):
                _read_text(handler(event, context))
                variants[f"{name}/{rev}"] = _call(handler, event, context)
        latencies = harness.interleave(variants, iterations=iterations, block=50, warmup=200)
    finally:
        holder.close()
    return {"latency_ms": harness.latencies_json(latencies)}


def memory(invocations: int) -> dict[str, Any]:
    """Measurement 4: current RSS after `invocations` warm invocations cycling every ready event.

    The mix covers both revisions, both API Gateway payload formats and every method the
    events exercise (reads, lists, tools, discovery, errors of unauthenticated reads).
    """
    lambda_handler, _ = _ours()
    context = _context()
    events = [harness.load_event(name) for name in harness.all_event_files()]
    for event in events:  # one of each first: imports and caches every path may need
        lambda_handler(event, context)
    samples = {"after_first_round": harness.current_rss_bytes()}
    for index in range(1, invocations + 1):
        lambda_handler(events[index % len(events)], context)
        if index in (invocations // 2, invocations):
            samples[str(index)] = harness.current_rss_bytes()
    return {"rss_bytes": samples, "events": len(events), "invocations": invocations}


def profile(invocations: int) -> dict[str, Any]:
    """cProfile of warm static reads through our handler: where a warm invocation spends its time."""
    lambda_handler, _ = _ours()
    context = _context()
    event = harness.read_event("config://server")
    for _ in range(200):
        lambda_handler(event, context)
    profiler = cProfile.Profile()
    profiler.runcall(lambda: [lambda_handler(event, context) for _ in range(invocations)])
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats("cumulative").print_stats(45)
    return {"report": report.getvalue()}


def fanout(repeats: int) -> dict[str, Any]:
    """Measurement 6: fan-out resources under an injected 50 ms per AWS call (see fanout.py)."""
    import fanout as fanout_scenarios

    return fanout_scenarios.measure(repeats)


def accounts(repeats: int) -> dict[str, Any]:
    """`?account=*` over three accounts vs one account's read, 50 ms per AWS call (see accounts.py)."""
    import accounts as account_reads

    return account_reads.measure(repeats)


def search(repeats: int) -> dict[str, Any]:
    """athena://databases and athena://search over 10,000 tables, 50 ms per AWS call (see search.py)."""
    import search as search_reads

    return search_reads.measure(repeats)


def lakehouse(repeats: int) -> dict[str, Any]:
    """An Iceberg table's explainer and table resources on a current lake, 50 ms per AWS call (see lakehouse.py)."""
    import lakehouse as lakehouse_reads

    return lakehouse_reads.measure(repeats)


def http(requests: int) -> dict[str, Any]:
    """Measurement 7: static reads over local HTTP, `serve` vs a bare SDK app on uvicorn (see local_http.py)."""
    import local_http

    return local_http.measure(requests)


def first(samples: int) -> dict[str, Any]:
    """Measurement 9: first reads vs warm ones, each in a fresh process (see first_read.py)."""
    import first_read

    return first_read.measure(samples)


def query(rounds: int) -> dict[str, Any]:
    """Measurement 8: an Athena result paged through `serve` vs a bare boto3 loop, and the server's RSS (see
    query_paging.py)."""
    import query_paging

    return query_paging.measure(rounds)


def signin(rounds: int) -> dict[str, Any]:
    """Measurement 9: the demo's sign-in from the client to the first read vs a static token's (see sign_in.py)."""
    import sign_in

    return sign_in.measure(rounds)


WORKERS: dict[str, tuple[Callable[[int], dict[str, Any]], int]] = {
    "warm": (warm, 2000),
    "tool": (tool, 2000),
    "manager": (manager, 2000),
    "memory": (memory, 1000),
    "profile": (profile, 500),
    "fanout": (fanout, 5),
    "accounts": (accounts, 5),
    "search": (search, 3),
    "lakehouse": (lakehouse, 5),
    "http": (http, 500),
    "query": (query, 5),
    "signin": (signin, 5),
    "first": (first, 5),
}


def main(argv: list[str]) -> None:
    result_fd = harness.swallow_output()
    function, default = WORKERS[argv[0]]
    try:
        result = function(int(argv[1]) if len(argv) > 1 else default)
    except Exception:
        traceback.print_exc()
        raise SystemExit(1) from None
    harness.emit(result_fd, result)


if __name__ == "__main__":
    main(sys.argv[1:])

