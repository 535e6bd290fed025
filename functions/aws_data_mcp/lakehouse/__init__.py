"""The open table formats and Athena's partition projection, read off what Glue and S3 hold: no AWS call here.

`iceberg` (a metadata document: schema, partitioning, snapshots, refs, time-travel SQL), `metadata_file` (its
bytes, gzip, the size cap), `avro` (the manifest lists and manifests Iceberg writes), `projection` (partition
projection and the locations it makes), `formats` (which format; Delta's and Hudi's notes) and `views` (a view's
SQL decoded, its dialects and base tables). The resolvers fetch as the caller and call in here, so the parsing is
tested without moto.
"""
