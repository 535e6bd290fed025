"""Progress where the transport can carry it (docs/protocol.md, "Progress").

Local HTTP: a request of no session that carries a `progressToken` is answered as the SDK streams it, so a
2026-07-28 client sees athena_query's state while it waits. On Lambda the answer stays one JSON body: Mangum
buffers the whole response and API Gateway does not stream it, so progress could only arrive with the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp_demo.account.emulated import DemoAccount
from support.events import REVISION_2026, body_json, http_api_event, modern
from support.queries import answer
from support.servers import ServerThread

SQL = "/* demo:running_seconds=2 */ SELECT count(*) AS orders FROM orders WHERE order_date = '2026-01-01'"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.usefixtures("quick_queries")
async def test_a_2026_client_over_local_http_sees_a_waiting_querys_progress(
        demo_query_http: ServerThread, demo_caller: DemoAccount) -> None:
    seen: list[tuple[float, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, message))

    async with Client(demo_query_http.url, mode="2026-07-28") as client:
        result = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"}, progress_callback=progress)
    assert answer(result)["state"] == "SUCCEEDED"
    assert seen and all("bytes scanned so far" in (message or "") for _, message in seen), seen
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_on_lambda_a_call_asking_for_progress_is_still_one_json_answer(
        lambda_handler: Callable[[Any], dict[str, Any]]) -> None:
    for name, arguments in (("get_resource", {"uri": "config://server"}),
                            ("athena_query", {"sql": SQL, "database": "sales"})):  # refused: no API Gateway caller
        body = modern("tools/call", {"name": name, "arguments": arguments})
        body["params"]["_meta"] = {**body["params"]["_meta"], "progressToken": "p1"}  # modern() shares one `_meta`
        response = lambda_handler(http_api_event(body, revision=REVISION_2026))
        assert response["statusCode"] == 200
        assert response["headers"]["content-type"].startswith("application/json"), response["headers"]
        assert body_json(response)["result"]["content"]
