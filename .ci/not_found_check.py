#!/usr/bin/env python3
"""This server's own conformance check: the code of an unknown resource on each revision (SEP-2164).

    not_found_check.py --url http://127.0.0.1:PORT/mcp

The suites miss it: their probe reads an unknown scheme (an invalid params answer on every revision anyway) and
their check only warns. Here a well-formed URI of a scheme the server serves, naming nothing, must answer
-32002 on 2025-11-25 and -32602 on 2026-07-28, both with `data.error` "not_found" and the valid URIs; and a
template URI with an empty argument must answer -32602 `invalid_argument` on both. Exit 1 on any difference.
Standard library only, like conformance_check.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any

LEGACY, MODERN = "2025-11-25", "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
               "io.modelcontextprotocol/clientInfo": {"name": "not-found-check", "version": "1"},
               "io.modelcontextprotocol/clientCapabilities": {}}
CASES = [  # (uri, revision, code, data.error)
    ("auth://no-such-resource", LEGACY, -32002, "not_found"),
    ("auth://no-such-resource", MODERN, -32602, "not_found"),
    ("metadata://templates/no-such-template", LEGACY, -32002, "not_found"),
    ("metadata://templates/no-such-template", MODERN, -32602, "not_found"),
    ("workflow://workflows//status", LEGACY, -32602, "invalid_argument"),
    ("workflow://workflows//status", MODERN, -32602, "invalid_argument"),
]


def read(url: str, uri: str, revision: str) -> dict[str, Any]:
    params: dict[str, Any] = {"uri": uri}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": revision}
    if revision == MODERN:
        params["_meta"] = MODERN_META
        headers.update({"Mcp-Method": "resources/read", "Mcp-Name": uri})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params}).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:  # 2026-07-28 answers -32602 with HTTP 400: the body is the answer
        return json.loads(error.read())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    problems = []
    for uri, revision, code, kind in CASES:
        error = read(args.url, uri, revision).get("error") or {}
        data = error.get("data") or {}
        got = (error.get("code"), data.get("error"))
        ok = got == (code, kind) and (kind != "not_found" or bool(data.get("valid_uris")))
        print(f"  {'PASS' if ok else 'FAIL'}  {revision}  {uri}  -> {got[0]} {got[1]} (want {code} {kind})")
        if not ok:
            problems.append(uri)
    print(f"\n  not-found codes {'ok' if not problems else 'FAILED'}: {len(CASES) - len(problems)} of {len(CASES)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
