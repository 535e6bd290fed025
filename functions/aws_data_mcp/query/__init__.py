"""The query tool: `athena_query` and `athena_stop_query` (`tool`), the workgroup cost guard (`cost_guard`), and
what a query answers wherever it is shown (`answers`, `errors`, `result_pages`; `s3_tables_fix`: the grant an S3
Tables refusal asks for) with its JSON Schema (`output_schema`, the tools' `outputSchema`); `tasks`, athena_query as
a task where a client negotiates the Tasks extension; `inputs`, what the tools take from the
athena:// namespace (execution ids, saved queries, the workgroup to run in); `estimate_run`, the estimate path for
a resource read."""
