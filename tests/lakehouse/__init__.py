"""Tests of aws_data_mcp.lakehouse (a package, so its modules never shadow the suite's own)."""
