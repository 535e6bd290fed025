"""The edges: HTTP (local and Lambda) and stdio. They know nothing of AWS data.

`http` is the ASGI app. `lambda_edge` has API Gateway's quirks, `lambda_context` Lambda's context
for `invoke`. `local_server` runs uvicorn on loopback, with `local_token`, `head_deadline` and
`connection_cap`. `limits`, `json_errors` and `request_ids` bound and shape bad input. `origins`
refuses an unlisted `Origin`. `paths` strips stage paths; `well_known` serves RFC 9728 and RFC 8414.
`stdio` runs the SDK's stdio and answers what its reader drops.
"""
