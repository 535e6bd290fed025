"""What the demo's Athena checks as the caller before it reads: IAM, bucket and key policies (`decisions`,
`conditions`, `request_context`) and Lake Formation's grants (`lake_formation`)."""
