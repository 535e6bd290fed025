"""One module per resource namespace: importing this package registers them all, the tools and the prompts, into
`registry`.

`athena/`, `permissions/`, `admin`, `auth`, `config`, `info`, `metadata`, `tabulator`, `views`, `workflow`, then
`prompts` and the `get_resource` tool (what resolvers share is `reading.resolving`). `registry` lives in the leaf module
`aws_data_mcp.registry`, so imports run one way; import it from here to get it filled.
"""

from aws_data_mcp.registry import registry
from aws_data_mcp.resources import (
    admin,
    athena,
    auth,
    config,
    info,
    metadata,
    permissions,
    tabulator,
    views,
    workflow,
)

# isort: split
# The prompts after the namespaces whose completers they reuse.
from aws_data_mcp.resources import prompts

# isort: split
# The tool last: its description lists the URI families registered above.
from aws_data_mcp.resources import get_resource

__all__ = [
    "admin", "athena", "auth", "config", "get_resource", "info", "metadata", "permissions", "prompts", "registry",
    "tabulator", "views", "workflow",
]
