"""permissions://: what the caller may really do with each bucket, and what to grant where it falls short.

One module per resource (the explainers' shared links in links.py, storage.py, lake_formation.py); importing this
package registers them all.
"""

from aws_data_mcp.resources.permissions import buckets, discover, recommendations, tables

__all__ = ["buckets", "discover", "recommendations", "tables"]
