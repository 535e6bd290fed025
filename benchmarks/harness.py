"""What every measurement shares: the child environment, events, statistics, interleaved timing,
and the parent/worker protocol.

Measurements run in fresh child processes so that one cannot warm or bloat another, and so
that a child's stdout (where our handler prints EMF metric lines) and stderr (logs) can be
swallowed at the file-descriptor level without touching the parent's table.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
EVENTS = ROOT / "events"
STATIC_READ_EVENT = "http-api-v2/resources-read-static.json"
TOOL_URIS = ("config://server", "metadata://templates/athena-table")
"""get_resource vs resources/read is compared on a static URI and a templated one."""
REVISION_2025 = "2025-11-25"
REVISION_2026 = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientInfo": {"name": "benchmarks", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
_INHERITED_AWS = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                  "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL")


# --- environment ------------------------------------------------------------------------------

def child_environment() -> dict[str, str]:
    """The environment of a simulated Lambda container.

    Hosted mode, quiet logs, a fixed region, and none of the developer's AWS credentials:
    nothing a benchmark serves needs AWS, and a stray credential lookup must not reach the
    network and turn a timing into a measurement of someone's SSO cache.
    """
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_AWS}
    env.update(
        AWS_DATA_MCP_MODE="lambda",
        POWERTOOLS_LOG_LEVEL="ERROR",
        POWERTOOLS_SERVICE_NAME="aws-data-mcp",
        AWS_REGION="us-east-1",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        PYTHONHASHSEED="0",
    )
    return env


# --- servers in processes of their own ---------------------------------------------------------

def start_server(command: Sequence[str], name: str,
                 env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """Run `command` + a free loopback port, and return once that port accepts connections.

    A server in the measuring process would compete with it for the GIL, and the measurement would time the
    server's work as its own.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = subprocess.Popen([*command, str(port)], env=dict(env or child_environment()), cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"{name} did not start (exit status {server.wait()})")


# --- events -----------------------------------------------------------------------------------

def load_event(relative: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / relative).read_text(encoding="utf-8"))
    return event


def rpc_event(method: str, params: dict[str, Any], *, revision: str = REVISION_2025,
              request_id: int = 1) -> dict[str, Any]:
    """An HTTP API (payload 2.0) event for one JSON-RPC request, shaped like the static-read event.

    On 2026-07-28 the body carries the protocol metadata in `_meta` and the headers repeat
    the method and name, as a real client sends them.
    """
    event = copy.deepcopy(load_event(STATIC_READ_EVENT))
    headers = dict(event["headers"], **{"mcp-protocol-version": revision})
    if revision == REVISION_2026:
        params = {**params, "_meta": MODERN_META}
        headers["mcp-method"] = method
        name = params.get("uri") or params.get("name")
        if name:
            headers["mcp-name"] = name
    event["headers"] = headers
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    return event


def read_event(uri: str, revision: str = REVISION_2025) -> dict[str, Any]:
    return rpc_event("resources/read", {"uri": uri}, revision=revision)


def get_resource_event(uri: str, revision: str = REVISION_2025) -> dict[str, Any]:
    return rpc_event("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}, revision=revision)


def all_event_files() -> list[str]:
    """Every ready event under events/, relative to it: the memory mix uses all of them."""
    return sorted(str(path.relative_to(EVENTS)) for path in EVENTS.rglob("*.json"))


# --- statistics -------------------------------------------------------------------------------

def percentile(samples: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 1] (numpy's default definition, without numpy)."""
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples")
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(samples: Sequence[float]) -> float:
    return percentile(samples, 0.5)


@dataclass(frozen=True)
class Latency:
    """p50/p95 of one variant, in milliseconds."""

    p50: float
    p95: float
    n: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        return cls(p50=percentile(seconds, 0.5) * 1e3, p95=percentile(seconds, 0.95) * 1e3, n=len(seconds))


def interleave(variants: Mapping[str, Callable[[], object]], *, iterations: int, block: int,
               warmup: int) -> dict[str, Latency]:
    """Time each variant `iterations` times, alternating blocks of `block` calls.

    On a noisy 2-core machine the load changes over seconds (other test runs, CPU
    frequency), so the variants take turns in short blocks, and the order of the turns is
    reversed every round so neither always runs right after the other.
    """
    for call in variants.values():
        for _ in range(warmup):
            call()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for round_index in range(-(-iterations // block)):
        for name in names if round_index % 2 == 0 else reversed(names):
            call, out = variants[name], samples[name]
            for _ in range(min(block, iterations - len(out))):
                started = time.perf_counter()
                call()
                out.append(time.perf_counter() - started)
    return {name: Latency.of(values) for name, values in samples.items()}


def latencies_json(latencies: Mapping[str, Latency]) -> dict[str, dict[str, float]]:
    return {name: asdict(latency) for name, latency in latencies.items()}


# --- memory -----------------------------------------------------------------------------------

def current_rss_bytes(pid: int | None = None) -> int:
    """Resident set size now (VmRSS) of this process or `pid`, not the peak: growth must be visible after a
    plateau."""
    with open(f"/proc/{pid or 'self'}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


# --- the parent/worker protocol ---------------------------------------------------------------

def swallow_output() -> int:
    """In a worker: send fd 1 (EMF metric lines) to /dev/null and return a private copy for the result.

    Done on file descriptors, not `sys.stdout`, because Powertools and logging handlers
    hold their own references to the stream objects.
    """
    result_fd = os.dup(1)
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return result_fd


def emit(result_fd: int, result: Mapping[str, Any]) -> None:
    with os.fdopen(result_fd, "w", encoding="utf-8") as out:
        json.dump(result, out)


class WorkerError(RuntimeError):
    pass


def run_worker(name: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    """Run `benchmarks/worker.py NAME ARGS` in a fresh process and return its JSON result.

    The worker's stderr is kept only to explain a failure.
    """
    command = [sys.executable, str(BENCHMARKS / "worker.py"), name, *args]
    done = subprocess.run(command, capture_output=True, text=True, env=child_environment(), cwd=ROOT,
                          timeout=timeout, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise WorkerError(f"worker {name!r} exited {done.returncode}:\n{tail}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result
