"""The deployed sign-in's own functions, beside the Cognito user pool the template creates (IdentityProvider=cognito).

Cognito is the authorization server, but MCP clients expect two things it lacks: dynamic client registration
(`registration`, its own Lambda function and role) and a role tag in the access token for the STS exchange
(`role_tag`, the pool's pre-token-generation trigger). Each is a small function of its own, so this package imports
nothing of the MCP server: stdlib and boto3 (the Lambda runtime's) only, no layer, a cold start of milliseconds.
"""
