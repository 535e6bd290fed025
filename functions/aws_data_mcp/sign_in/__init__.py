"""The deployed sign-in's own functions, beside the Cognito user pool (IdentityProvider=cognito).

Cognito lacks two things MCP clients expect: client registration (`registration`, served by `lambda_entries`, its
redirect URIs checked by `redirect_allowlist`) and a role tag in the access token (`role_tag`, the pre-token
trigger). The package imports nothing of the server: stdlib and boto3 only, a cold start of milliseconds.
"""
