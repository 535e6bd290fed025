"""What the demo's Athena checks as the caller before it reads: IAM, bucket and key policies (`decisions`,
`conditions`, `request_context`), Lake Formation's grants (`lake_formation`), and S3 Tables' reads of an S3 table
(`s3_tables`); a Data Catalog view's, the caller's SELECT on it and its definer's reads (`definer`)."""
