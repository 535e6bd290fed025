"""The open table formats and Athena's partition projection, read off what Glue and S3 hold: pure functions from
a table's parameters or an Iceberg metadata document to a typed description, with no AWS call.

The resolvers fetch (as the caller) and call in here, so the parsing is tested without moto and shared by every
resource that describes a table.
"""
