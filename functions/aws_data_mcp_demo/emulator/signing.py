"""moto's signature check, signing the payload the client really sent.

moto signs ``body or data``: for a request without a body, ``data`` is its query string or its headers.
So every GET or DELETE of a REST API failed (S3 Tables' ListTableBuckets, ListNamespaces, ListTables).
Only a form-encoded body, which the web server parses away, is rebuilt from its fields.
"""

from botocore.awsrequest import AWSRequest
from moto.iam.access_control import IAMRequest

from aws_data_mcp_demo.emulator.patch import Extension

_moto_aws_request = IAMRequest._create_aws_request
FORM = "application/x-www-form-urlencoded"


def _form_encoded(headers: dict[str, str]) -> bool:
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    return content_type.split(";", 1)[0].strip().lower() == FORM


def _request_as_sent(self: IAMRequest) -> AWSRequest:
    """moto's request to sign, its payload the raw body (an empty one stays empty)."""
    request = _moto_aws_request(self)
    if not self._body and not _form_encoded(self._headers):
        request.data = b""
    return request


SIGNING: tuple[Extension, ...] = (Extension(IAMRequest, "_create_aws_request", _request_as_sent),)
