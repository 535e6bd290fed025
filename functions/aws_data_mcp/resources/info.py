"""info://capabilities: generated from the live registry, so it cannot drift."""

from __future__ import annotations

from typing import Any

from aws_data_mcp.registry import ResourceRequest, registry


@registry.resource(
    "info://capabilities",
    name="capabilities",
    title="Server capabilities",
    description="Every tool, resource, template and prompt this server offers, with what each requires "
    "(none/auth/admin).",
)
def capabilities(request: ResourceRequest) -> dict[str, Any]:
    discovery = request.registry.discovery()
    return {
        "server": {"name": "aws-data-mcp", "version": request.settings.version,
                   "deployment_mode": request.settings.mode, "auth_mode": request.settings.auth_mode},
        "protocol_revisions": list(request.settings.protocol_revisions),
        "counts": {kind: len(items) for kind, items in discovery.items()},
        **discovery,
    }
