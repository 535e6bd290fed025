"""A client's web host on loopback, over HTTPS with a certificate of its own: it serves the Client ID Metadata
Documents the sign-in tests name, honest ones and lying ones (each `Page` says what its URL answers)."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Page:
    body: bytes
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    dribble_seconds: float = 0.0
    """Send the body a byte at a time, this long apart (a slow host)."""


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost and its key, as PEM files: the certificate is its own CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "client documents on loopback")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "host.pem", folder / "host.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


class DocumentHost:
    """`https://127.0.0.1:<port>/<path>` for each page; `certificate` is the file a fetcher must trust."""

    def __init__(self, folder: Path) -> None:
        self.certificate, key = self_signed(folder)
        self.pages: dict[str, Page] = {}
        self.requests: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.requests.append(self.path)
                page = host.pages.get(self.path, Page(b"{}", status=404))
                self.send_response(page.status)
                for name, value in page.headers.items():
                    self.send_header(name, value)
                if not page.dribble_seconds:
                    self.send_header("Content-Length", str(len(page.body)))
                self.end_headers()
                if not page.dribble_seconds:
                    self.wfile.write(page.body)
                    return
                try:
                    for byte in page.body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(page.dribble_seconds)
                except OSError:
                    pass  # the fetcher gave up waiting, as it should

            def log_message(self, *args: object) -> None:
                pass

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.certificate, key)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def trusting(self) -> ssl.SSLContext:
        """A client TLS context that trusts this host's certificate."""
        return ssl.create_default_context(cafile=str(self.certificate))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
