"""permissions://: what the caller may really do, and what to grant where it falls short.

The four resources register and shape answers: `discover`, `recommendations`, `tables` and `buckets`; their
engine is `aws_data_mcp.explainer`.
"""

from aws_data_mcp.resources.permissions import buckets, discover, recommendations, tables

__all__ = ["buckets", "discover", "recommendations", "tables"]
