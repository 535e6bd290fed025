"""The demo account's endpoint: moto's threaded server serving the emulated AWS services, without moto's admin API.

The endpoint listens on loopback, where any user of the machine can reach it. Real AWS checks a signature on
every call, and so does the emulated account (IAM enforced); moto's admin API (``/moto-api/...``) checks
nothing and serves ``data.json`` (every emulated access key, secret and session), resets the account and
switches IAM enforcement off (``reset-auth``). It is refused here; the demo does what it needs of it in-process
(``moto_api_backend``: resetting the account, queueing Athena results while seeding).

Both servers here find a request's service as moto does, but remember the service of each host: moto's own
dispatcher lists its package's folders and tries every service's URL pattern on each request, under a lock all
requests share (about a millisecond a call).
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
