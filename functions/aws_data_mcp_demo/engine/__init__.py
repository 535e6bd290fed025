"""The demo's Athena engine: Trino SQL run over the lake's files with DuckDB (`athena`, `query`).

Beside them: the columns and bytes a query reads (`columns`, `files`, `partition_pruning`). Trino's
types, refusals and rewrites (`trino_semantics`, `trino_function_names`). SHOW/DESCRIBE from Glue
(`metadata`). Iceberg snapshots and metadata tables (`iceberg`), S3 table buckets' catalogs
(`s3_tables`). Partition projection (`projection`), Glue views as their SQL (`views`), a resource link
read as the table it names (`resource_links`), and failures in Athena's words (`failures`).
"""
