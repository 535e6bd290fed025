"""The demo's Athena engine: Trino SQL run over the lake's files with DuckDB (`athena`, `query`), the columns and
bytes a query reads (`columns`, `files`), and SHOW/DESCRIBE answered from Glue (`metadata`)."""
