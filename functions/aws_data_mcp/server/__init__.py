"""The MCP server: the SDK's `MCPServer` with our methods (`mcp_server`), the SDK's private members in one place
(`sdk_adapter`), list paging and cursors (`list_paging`, `cursors`), change notifications (`live_updates`), the
audit line of every request (`audit_trail`), MCP Apps (`apps`), trust annotations on answers others' text fills
(`trust_marks`), what a tool may ask of the server (`tool_host`), answers and their JSON (`answers`, `rendering`) and
the 2026-07-28 sealed request state (`request_state`)."""
