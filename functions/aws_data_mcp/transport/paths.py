"""The path a route sees: the request path below the ASGI root path (an API Gateway stage, say)."""

from __future__ import annotations

from starlette.types import Scope


def route_path(scope: Scope) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path
