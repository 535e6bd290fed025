"""Who a request acts as: the request resolved to a caller (`resolve`).

Resolvers get the caller (`caller`) instead of any token. `accounts` picks the account a request
reads. `hosted/` exchanges API Gateway's callers with STS.
"""
