"""Reading one URI: the one read path behind `resources/read` and `get_resource` (`reader`).

Beside it: its cache (`cache`), the request's deadline (`deadlines`), the bounded fan-out of AWS
calls (`fanout`). The memo asks AWS each question once per read (`call_memo`). What every resolver
shares to build an answer from parts is `resolving`, below both the resources and the query tool.
"""
