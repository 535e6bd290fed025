"""The demo's Athena engine: Trino SQL run over the lake's files with DuckDB (`athena`, `query`), the columns and
bytes a query reads (`columns`, `files`, `partition_pruning`), Trino's types, refusals and rewrites
(`trino_semantics`, `trino_function_names`), SHOW/DESCRIBE answered from Glue (`metadata`), Iceberg snapshots and
metadata tables through pyiceberg (`iceberg`), S3 table buckets' catalogs (`s3_tables`) and partition projection
(`projection`); a failure as
Athena words it (`failures`)."""
