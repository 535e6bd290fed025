"""The seeded account: the running emulator (`emulated`), the data story (`seed_data`, `lake_data`), how it is
written (`seed`, `seed_athena`, `lake_tables`), the enterprise fixtures (`enterprise`), the lakehouse
(`lakehouse`), the S3 table bucket (`s3_tables`), what is known of its tables before a query (`table_facts`), member
accounts (`members`), callers (`callers`) and their AWS profiles (`profiles`)."""
