"""Reading one URI: the one read path behind `resources/read` and `get_resource` (`reader`), its cache (`cache`),
the request's deadline (`deadlines`), the bounded per-item fan-out of AWS calls (`fanout`) and the memo that asks
AWS each question once per read (`call_memo`)."""
