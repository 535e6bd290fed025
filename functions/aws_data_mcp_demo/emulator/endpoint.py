"""The demo account's endpoint: moto's threaded server, without moto's admin API.

It listens on loopback, where any user of the machine can reach it.
moto's admin API checks no signature and hands out every secret, so it is refused.
Each host's service is remembered: moto's dispatcher tries every service under one lock.
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


class HostsResolvedOnce(DomainDispatcherApplication):
    """moto's dispatcher, each host's service found once (moto's answer depends on the host alone)."""

    def __init__(self, create_app: Any) -> None:
        super().__init__(create_app)
        self._services: dict[str | None, Any] = {}

    def get_backend_for_host(self, host: str | None) -> Any:
        # Called under the dispatcher's lock (moto's get_application), so the dict needs none of its own.
        if host not in self._services:
            self._services[host] = super().get_backend_for_host(host)
        return self._services[host]


class _ServicesOnly(HostsResolvedOnce):
    """The dispatcher, with whatever it would route to moto's admin API refused (by the app it chose, so a path
    or header that moto routes there some other way is refused alike)."""

    def get_application(self, environ: dict[str, Any]) -> Any:
        app = super().get_application(environ)
        return _refuse_admin_api if getattr(app, "service", None) == "moto_api" else app


class MotoEndpoint(ThreadedMotoServer):
    """``ThreadedMotoServer`` with ``HostsResolvedOnce`` as its application, admin API included (the rest as moto's
    own ``_server_entry``)."""

    dispatcher: type[HostsResolvedOnce] = HostsResolvedOnce

    def _server_entry(self) -> None:
        self._server = make_server(self._ip_address, self._port, self.dispatcher(create_backend_app), True,
                                   request_handler=MotoRequestHandler)
        self._server_ready_event.set()
        self._server.serve_forever()


class EmulatedEndpoint(MotoEndpoint):
    """The demo's endpoint: moto's admin API refused (``_ServicesOnly``)."""

    dispatcher = _ServicesOnly
