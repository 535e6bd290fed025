"""The SQL guard: which text `athena_query` sends to Athena. No AWS call and no AWS import: a refusal costs nothing.

`read_only` decides; `trino_lexer` splits text as Trino does; `token_shapes` and `tree_shapes` catch what sqlglot
reads more leniently than Trino; `metadata_statements` reads SHOW and DESCRIBE.
"""
