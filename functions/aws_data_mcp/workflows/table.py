"""The workflow table: its default name and exactly the actions the DynamoDB store calls on it.

It is the one source for the setting's default, the resources' `aws_calls` and the demo's grant.
template.yaml grants the function role the same actions. tests/deploy checks them against
`TABLE_ACTIONS`.
"""

DEFAULT_TABLE_NAME = "aws-data-mcp-workflows"
GET, QUERY, PUT, DELETE = "dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem"
TABLE_ACTIONS = (GET, QUERY, PUT, DELETE)
