"""Live updates where the transport can carry them, advertised exactly where they are served.

stdio and local HTTP serve them on both revisions: `resources/subscribe` then `notifications/resources/updated`
for 2025-11-25 (local HTTP keeps a session per client for it, and a change made by one client reaches every
other's subscription), `subscriptions/listen` for 2026-07-28, and list-changed on create and delete. Lambda
serves 2025-11-25 statelessly and buffers responses, so no session could receive them: it advertises none on
either revision. `initialize` and `server/discover` say the same on every transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceListChangedNotification, ResourceUpdatedNotification
from workflow_support import Heard, stdio_server

from aws_data_mcp.config import Settings
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, modern, rpc
from support.servers import ServerThread, free_port

INITIALIZE = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": {},
                                "clientInfo": {"name": "pytest", "version": "1"}})
NOT_STREAMED = {"resources": {"subscribe": False, "listChanged": False}, "tools": {"listChanged": False}}
STREAMED = {"resources": {"subscribe": True, "listChanged": True}, "tools": {"listChanged": False}}


def post_http(url: str, body: dict[str, Any], revision: str) -> dict[str, Any]:
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": revision}
    if revision == REVISION_2026:
        headers["mcp-method"] = body["method"]
    return httpx2.post(url, json=body, headers=headers, timeout=10).json()  # type: ignore[no-any-return]


@pytest.fixture
def on_lambda(lambda_handler: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any], str], Any]:
    return lambda body, revision: body_json(lambda_handler(http_api_event(body, revision=revision)))


@pytest.fixture(scope="module")
def local_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = str(tmp_path_factory.mktemp("live") / "workflows.sqlite3")
    with ServerThread(Settings(mode="local", port=free_port(), workflow_db=database)) as server:
        yield server.url


@pytest.fixture(params=["stdio", "local-http"])
def streaming(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """A server that serves live updates: each call is a new client of the same server (stdio: its one client)."""
    if request.param == "stdio":
        server = stdio_server(tmp_path / "live.sqlite3")
        return lambda: server
    url = request.getfixturevalue("local_http")
    return lambda: url


def subscription_flags(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {"resources": capabilities["resources"], "tools": capabilities["tools"]}


def without_extensions(capabilities: dict[str, Any]) -> dict[str, Any]:
    """The capabilities less `extensions`: the SDK announces MCP Apps (docs/views.md) in 2026-07-28's discover only."""
    return {name: value for name, value in capabilities.items() if name != "extensions"}


def test_lambda_advertises_the_same_on_initialize_and_discover_and_no_live_updates(on_lambda: Any) -> None:
    legacy = on_lambda(INITIALIZE, REVISION_2025)["result"]["capabilities"]
    current = on_lambda(modern("server/discover", {}), REVISION_2026)["result"]["capabilities"]
    assert legacy == without_extensions(current) and "io.modelcontextprotocol/ui" in current["extensions"]
    assert subscription_flags(legacy) == NOT_STREAMED


def test_lambda_serves_no_subscription_method_on_either_revision(on_lambda: Any) -> None:
    subscribe = on_lambda(rpc("resources/subscribe", {"uri": "workflow://workflows"}, 3), REVISION_2025)
    unsubscribe = on_lambda(rpc("resources/unsubscribe", {"uri": "workflow://workflows"}, 4), REVISION_2025)
    listen = on_lambda(modern("subscriptions/listen", {"notifications": {"resourcesListChanged": True}}, 5),
                       REVISION_2026)
    assert [answer["error"]["code"] for answer in (subscribe, unsubscribe, listen)] == [-32601] * 3


@pytest.mark.anyio
async def test_streaming_transports_advertise_live_updates_the_same_on_both_revisions(
        streaming: Callable[[], Any]) -> None:
    advertised, revisions = [], []
    for mode in ("legacy", "auto"):  # auto: server/discover, and the newest revision both sides speak
        async with Client(streaming(), mode=mode) as client:
            advertised.append(client.server_capabilities.model_dump(by_alias=True, exclude_none=True))
            revisions.append(client.protocol_version)
    assert revisions == [REVISION_2025, REVISION_2026]
    assert advertised[0] == without_extensions(advertised[1])
    assert subscription_flags(advertised[0]) == STREAMED


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")  # it is, as of 2026-07-28: tested here
async def test_a_subscribed_2025_client_hears_of_every_change_within_a_second(streaming: Callable[[], Any]) -> None:
    heard = Heard()
    async with Client(streaming(), mode="legacy", message_handler=heard) as client:
        created = await client.call_tool("workflow_create", {"name": "Watched", "steps": ["a"]})
        await heard.next("notifications/resources/list_changed")
        workflow_id = created.structured_content["workflow"]["id"]
        uri = f"workflow://workflows/{workflow_id}/status"
        await client.subscribe_resource(uri)
        started = anyio.current_time()
        await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                        "status": "in_progress"})
        updated = await heard.next("notifications/resources/updated")
        assert anyio.current_time() - started < 1.0
        assert isinstance(updated, ResourceUpdatedNotification) and updated.params.uri == uri
        with pytest.raises(MCPError) as unknown:
            await client.subscribe_resource("nope://nothing")
        assert unknown.value.error.data["error"] == "invalid_uri"
        await client.subscribe_resource("workflow://workflows")  # the list: every entry carries its status
        await client.unsubscribe_resource(uri)
        await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                        "status": "failed"})
        listed = await heard.next("notifications/resources/updated")
        assert isinstance(listed, ResourceUpdatedNotification) and listed.params.uri == "workflow://workflows"
        await client.unsubscribe_resource("workflow://workflows")
        await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                        "status": "completed"})
        assert await heard.nothing("notifications/resources/updated", within=0.3)
        await client.call_tool("workflow_delete", {"workflow_id": workflow_id})
        changed = await heard.next("notifications/resources/list_changed")
    assert isinstance(changed, ResourceListChangedNotification)


@pytest.mark.anyio
async def test_a_listening_2026_client_hears_of_every_change_within_a_second(streaming: Callable[[], Any]) -> None:
    async with Client(streaming(), mode="2026-07-28") as client:
        created = await client.call_tool("workflow_create", {"name": "Watched", "steps": ["a"]})
        workflow_id = created.structured_content["workflow"]["id"]
        uri = f"workflow://workflows/{workflow_id}/status"
        async with client.listen(resource_subscriptions=[uri], resources_list_changed=True) as events:
            started = anyio.current_time()
            await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                            "status": "in_progress"})
            with anyio.fail_after(1.0):
                updated = await events.__anext__()
            assert anyio.current_time() - started < 1.0
            assert getattr(updated, "uri", None) == uri
            other = await client.call_tool("workflow_create", {"name": "Another"})
            with anyio.fail_after(1.0):
                assert type(await events.__anext__()).__name__ == "ResourcesListChanged"
            await client.call_tool("workflow_delete", {"workflow_id": other.structured_content["workflow"]["id"]})
            with anyio.fail_after(1.0):
                assert type(await events.__anext__()).__name__ == "ResourcesListChanged"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_on_local_http_a_change_by_one_client_reaches_another_clients_subscription(local_http: str) -> None:
    """Two 2025-11-25 sessions of one local server: the watcher hears of what the editor does."""
    heard = Heard()
    async with Client(local_http, mode="legacy", message_handler=heard) as watcher, \
            Client(local_http, mode="legacy") as editor:
        created = await editor.call_tool("workflow_create", {"name": "Shared", "steps": ["a"]})
        await heard.next("notifications/resources/list_changed")
        uri = f"workflow://workflows/{created.structured_content['workflow']['id']}/status"
        await watcher.subscribe_resource(uri)
        await editor.call_tool("workflow_update_step", {"workflow_id": created.structured_content["workflow"]["id"],
                                                        "step_id": "s1", "status": "completed"})
        updated = await heard.next("notifications/resources/updated")
    assert isinstance(updated, ResourceUpdatedNotification) and updated.params.uri == uri


def test_on_local_http_a_subscription_without_a_session_is_refused_saying_how_to_get_one(local_http: str) -> None:
    """A one-off 2025-11-25 POST is answered statelessly: a subscription there would reach nobody."""
    answer = post_http(local_http, rpc("resources/subscribe", {"uri": "workflow://workflows"}, 7), REVISION_2025)
    error = answer["error"]
    assert error["data"]["error"] == "invalid_argument" and "needs a session" in error["message"]
    assert "Mcp-Session-Id" in error["data"]["details"][0]
    assert "result" in post_http(local_http, rpc("tools/list", {}, 8), REVISION_2025), "one-off requests still work"
