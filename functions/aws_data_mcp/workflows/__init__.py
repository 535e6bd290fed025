"""Workflows: a caller's multi-step plans, kept where any container (or process) finds them again.

`model` holds the shape and its rules, `store` the interface. `sqlite_store` and `dynamodb_store`
are the two stores. `service` has the operations (ownership, limits, versioned writes). `failures`
tells a store failure to the caller. `table` is the DynamoDB table and its actions. `output_schema`
is what the workflow tools answer.
"""
