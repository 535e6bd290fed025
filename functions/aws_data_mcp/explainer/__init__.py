"""The access explainer's engine: would a read work for the caller, link by link, judged by AWS.

Chains: `table_chain`, `bucket_chain`, `workgroup_checks`, `s3_tables` (a table bucket's table), `views` (a view's
base tables, as invoker or definer) and `resource_links` (DESCRIBE on a link, SELECT on its target). Their parts:
`model` (a link, its verdict), `storage_links` (S3, KMS), `iceberg_files`, `lake_formation`, `lf_grants`,
`registrations`, `identity_policies`, `deny_narrowing`, `athena_context`, `results_path`. Fixes:
`resource_narrowing`, `fix_reach`, `direct_reads`. Reading: `policy_grammar` (IAM's wildcards), `summary` (the
opening line), `uris` (a refusal's explainer). The `permissions://` resources register and shape these.
"""
