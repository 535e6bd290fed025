"""One module per resource namespace; importing this package registers them all, and the tools.

`registry` is the process-wide registry every edge reads from.
"""

from aws_data_mcp.registry import Registry

registry = Registry()

from aws_data_mcp.resources import (  # noqa: E402, I001  (registration side effect)
    admin, athena, auth, config, info, metadata, permissions, tabulator, workflow,
)

# The tool last: its description lists the URI families registered above.
from aws_data_mcp import get_resource  # noqa: E402

__all__ = [
    "admin", "athena", "auth", "config", "get_resource", "info", "metadata", "permissions", "registry", "tabulator",
    "workflow",
]
