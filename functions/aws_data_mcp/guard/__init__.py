"""The SQL guard: which text `athena_query` sends to Athena. No AWS call and no AWS import: a refusal costs nothing.

`read_only` decides; `trino_lexer` splits text as Trino does; `trino_parser` reads it with the parser ANTLR
generates from Trino's grammar (`trino_sql/`, loaded on the first query only); `token_shapes` and `tree_shapes`
catch what sqlglot reads more leniently than Trino; `metadata_statements` reads SHOW and DESCRIBE;
`catalog_patterns` matches a catalog's name against the operator's patterns (`s3tablescatalog/*`).
"""
