"""Reading one URI: the one read path behind `resources/read` and `get_resource` (`reader`), its cache (`cache`),
the request's deadline (`deadlines`) and the bounded per-item fan-out of AWS calls (`fanout`)."""
