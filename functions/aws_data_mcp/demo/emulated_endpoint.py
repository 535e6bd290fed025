"""The demo account's endpoint: moto's threaded server serving the emulated AWS services, without moto's admin API.

The endpoint listens on loopback, where any user of the machine can reach it. Real AWS checks a signature on
every call, and so does the emulated account (IAM enforced); moto's admin API (``/moto-api/...``) checks
nothing and serves ``data.json`` (every emulated access key, secret and session), resets the account and
switches IAM enforcement off (``reset-auth``). It is refused here; the demo does what it needs of it in-process
(``moto_api_backend``: resetting the account, queueing Athena results while seeding).
"""

import json
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from moto.server import ThreadedMotoServer
from werkzeug.serving import make_server

ADMIN_API_REFUSED = "The demo's emulated AWS endpoint serves AWS's APIs only, not moto's admin API"


def _refuse_admin_api(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    body = json.dumps({"message": ADMIN_API_REFUSED}).encode()
    start_response("403 Forbidden", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


class _ServicesOnly(DomainDispatcherApplication):
    """moto's dispatcher, with whatever it would route to its admin API refused (by the app it chose, so a
    path or header that moto routes there some other way is refused alike)."""

    def get_application(self, environ: dict[str, Any]) -> Any:
        app = super().get_application(environ)
        return _refuse_admin_api if getattr(app, "service", None) == "moto_api" else app


class EmulatedEndpoint(ThreadedMotoServer):
    """``ThreadedMotoServer`` with ``_ServicesOnly`` as its application (the rest as moto's own ``_server_entry``)."""

    def _server_entry(self) -> None:
        self._server = make_server(self._ip_address, self._port, _ServicesOnly(create_backend_app), True,
                                   request_handler=MotoRequestHandler)
        self._server_ready_event.set()
        self._server.serve_forever()
