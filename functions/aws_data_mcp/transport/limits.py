"""Size limits every HTTP request meets before the SDK sees it, on Lambda and locally.

Header values are echoed in places (an `Mcp-Name` is the URI an error quotes) and parsed by every layer:
an oversized one is refused at once with 431 rather than carried through. API Gateway caps headers at
10 KB itself; locally nothing else does (uvicorn's h11 limit applies only to headers arriving in pieces).
"""

from __future__ import annotations

from mcp_types import INVALID_REQUEST
from starlette.types import Scope, Send

from aws_data_mcp.transport.json_errors import send_error

MAX_HEADER_BYTES = 8 * 1024
"""One header value: room for a SigV4 session token or an OIDC JWT (an Mcp-Name URI is at most 2,048)."""
MAX_HEADERS_BYTES = 32 * 1024
"""All headers of a request together."""


def oversized_header(scope: Scope) -> str | None:
    """What is too large about this request's headers, or None."""
    total = 0
    for name, value in scope.get("headers") or ():
        if len(value) > MAX_HEADER_BYTES:
            return f"header {name[:64].decode('latin-1')!r} is longer than {MAX_HEADER_BYTES} bytes"
        total += len(name) + len(value)
    if total > MAX_HEADERS_BYTES:
        return f"headers are longer than {MAX_HEADERS_BYTES} bytes together"
    return None


async def refuse_oversized_headers(scope: Scope, send: Send) -> bool:
    """Answer 431 if the headers are too large; True when the request was answered."""
    problem = oversized_header(scope) if scope["type"] == "http" else None
    if problem is None:
        return False
    await send_error(send, 431, INVALID_REQUEST, f"Request header fields too large: {problem}")
    return True
