"""One module per resource namespace; importing this package registers them all.

`registry` is the process-wide registry every edge reads from.
"""

from aws_data_mcp.registry import Registry

registry = Registry()

from aws_data_mcp.resources import auth, config, info, metadata  # noqa: E402  (registration side effect)

__all__ = ["auth", "config", "info", "metadata", "registry"]
