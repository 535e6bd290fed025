"""The access explainer's engine: would a read work for the caller, link by link, judged by AWS.

`model` holds a link and its verdict; `table_chain`, `bucket_chain` and `workgroup_checks` build the chains (and
`s3_tables` an S3 table bucket's table's: Glue with the catalog's path, S3 Tables, its policies and key) from
`storage_links` (S3 and KMS), `iceberg_files` (the files an Iceberg snapshot reads), `lake_formation`,
`lf_grants`, `resource_links` (a resource link's DESCRIBE and its target's SELECT),
`registrations`, `identity_policies`, `deny_narrowing`, `athena_context` and `results_path`;
`resource_narrowing` takes one access out of a bucket or key policy's Deny, `fix_reach` says whom a fix reaches;
`direct_reads` names, for the data owner, S3 reads past Lake Formation's grants; `policy_grammar` reads IAM's
wildcards; `summary` writes the opening line; `uris` names the explainer of a refusal. The `permissions://`
resources register and shape these.
`views` follows a view's base tables as Athena reads them: as the caller, or as the view's definer.
"""
