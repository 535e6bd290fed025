"""The demo's Athena engine: Trino SQL run over the lake's files with DuckDB (`athena`, `query`), the columns and
bytes a query reads (`columns`, `files`, `partition_pruning`), Trino's types, refusals and rewrites
(`trino_semantics`, `trino_function_names`), SHOW/DESCRIBE answered from Glue (`metadata`), Iceberg snapshots and
metadata tables through pyiceberg (`iceberg`), S3 table buckets' catalogs (`s3_tables`), partition projection
(`projection`), Glue views read as their SQL (`views`), a resource link
read as the table it names (`resource_links`); a failure as
Athena words it (`failures`)."""
