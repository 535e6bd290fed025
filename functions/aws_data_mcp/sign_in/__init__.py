"""The deployed sign-in's own functions, beside the Cognito user pool (IdentityProvider=cognito).

Cognito lacks what MCP clients expect: client registration (`registration`, served by `lambda_entries`, its
redirect URIs checked by `redirect_allowlist`), clients named by a metadata document (`client_documents` fetches
and checks one, `document_clients` gives it an app client), RFC 9207's `iss` (`facade`, in front of Cognito's
authorize and token endpoints) and a role tag in the access token (`role_tag`, the pre-token trigger).
The package imports nothing of the server: stdlib and boto3 only, a cold start of milliseconds.
"""
