"""permissions://: what the caller may really do with each bucket, and what to grant where it falls short.

One module per resource; importing this package registers both.
"""

from aws_data_mcp.resources.permissions import discover, recommendations

__all__ = ["discover", "recommendations"]
