"""Who a request acts as: the request resolved to a caller (`resolve`), the object resolvers get instead of any
token (`caller`), the account a request reads (`accounts`), and API Gateway's callers exchanged with STS
(`hosted/`)."""
