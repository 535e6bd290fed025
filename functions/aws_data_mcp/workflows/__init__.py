"""Workflows: a caller's multi-step plans, kept where any container (or process) finds them again.

`model` the shape and its rules, `store` the interface, `sqlite_store` and `dynamodb_store` the two stores,
`service` the operations (ownership, limits, versioned writes), `failures` a store failure told to the caller,
`table` the DynamoDB table and its actions, `output_schema` what the workflow tools answer (their `outputSchema`).
"""
