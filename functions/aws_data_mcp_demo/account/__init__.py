"""The seeded account: the emulator (`emulated`) and the data story (`seed_data`, `lake_data`).

How it is written: `seed`, `seed_athena`, `lake_tables`. The enterprise fixtures are `enterprise`,
the lakehouse `lakehouse`, the S3 table bucket `s3_tables`. What is known of its tables before a
query is `table_facts`. Then member accounts (`members`), callers (`callers`) and their AWS profiles
(`profiles`).
"""
