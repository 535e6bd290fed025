"""Workflows: a caller's multi-step plans, kept where any container (or process) finds them again.

`model.py` the shape and its rules, `store.py` the interface, `sqlite_store.py` and `dynamodb_store.py`
the two stores, `service.py` the operations (ownership, limits, versioned writes with retries).
"""
