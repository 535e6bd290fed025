"""The edges: HTTP (local and Lambda) and stdio. They know nothing of AWS data.

`http` (the ASGI app), `lambda_edge` (API Gateway's quirks) and `lambda_context` (Lambda's context for `invoke`),
`local_server` (uvicorn on loopback) with `local_token`, `head_deadline` and `connection_cap`, `limits`,
`json_errors` and `request_ids` (bounded, structured bad input), `origins` (403 for an unlisted `Origin`), `paths`
(stage paths), `well_known` (RFC 9728 and RFC 8414) and `stdio` (the SDK's stdio, answering what its reader drops).
"""
