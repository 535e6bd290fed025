"""Tests of aws_data_mcp.explainer (a package, so its modules and conftest never shadow the suite's own)."""
