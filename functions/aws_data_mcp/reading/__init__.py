"""Reading one URI: the one read path behind `resources/read` and `get_resource` (`reader`), its cache (`cache`),
the request's deadline (`deadlines`), the bounded per-item fan-out of AWS calls (`fanout`), the memo that asks
AWS each question once per read (`call_memo`), and what every resolver shares to build an answer from parts
(`resolving`: below both the resources and the query tool, which each use it)."""
