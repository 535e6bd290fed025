"""Tests of aws_data_mcp.guard (a package, so its modules and conftest never shadow the suite's own)."""
