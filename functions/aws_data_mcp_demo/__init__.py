"""The demo: an emulated AWS account on one machine, so every resource answers without an AWS account.

Its own package beside the product, as moto is beside boto3: the product never imports it, and the Lambda
package ships without it. Folders: `emulator/` (what moto lacks of AWS), `engine/` (Athena over DuckDB),
`access/` (what Athena checks as the caller), `account/` (the seeded account and its callers), `front/` (the
local API Gateway fronts and sign-in) and `command` (`python -m aws_data_mcp_demo`).
"""
