"""What moto lacks of AWS, filled in: Athena's execution details (`athena`), Glue search (`search`), Glue's column
statistics (`column_statistics`) and Data Quality results (`data_quality`), Lake Formation (`lake_formation`), a
shared table read in its owner's catalog (`shared_tables`), Glue's
S3 Tables catalogs over moto's s3tables store (`s3_tables`), S3 Tables' authorisation, policies and encryption
(`s3_tables_access`), KMS (`kms`), IAM's simulator (`iam_simulator`), paging (`paging`), moto's signature check of a
request without a body (`signing`), each installed through one patch hook (`patch`, `extensions`); the loopback
endpoint that serves them (`endpoint`); pyiceberg's file IO into the emulated S3 (`iceberg_io`)."""
