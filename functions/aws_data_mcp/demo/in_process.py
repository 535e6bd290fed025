"""boto3 calls answered by moto in this process, with no HTTP: how the demo seeds its account.

The seed makes a few hundred calls; through the endpoint each is an HTTP request to a thread of this very
process, and that round trip is about half the seed's CPU. ``answered_in_process`` switches on moto's own
in-process path (``mock_aws``) for as long as the seed runs, on the backends the endpoint serves (moto's state is
process-wide): nothing is reset on the way in or out. While it is on, moto also sets its placeholder keys in the
environment and clears boto3's default session; both are put back when it ends, before anyone is served.

``InProcessSession``'s clients go to AWS's own endpoints (whatever the environment or the shared configuration
would put instead), which moto answers while it is on, over plain HTTP as to the endpoint: botocore then signs
each body and puts its checksum in a header, so what is stored (S3 keeps the request's payload hash among an
object's metadata) is what a seed through the endpoint stores.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from botocore.config import Config
from moto import mock_aws

_AWS_OWN_ENDPOINTS = Config(ignore_configured_endpoint_urls=True, use_fips_endpoint=False, use_dualstack_endpoint=False)


@contextmanager
def answered_in_process() -> Iterator[None]:
    """moto answers boto3's calls to AWS in this process meanwhile, on the state it already holds."""
    mock = mock_aws()
    mock.start(reset=False)
    try:
        yield
    finally:
        mock.stop(remove_data=False)


class InProcessSession(boto3.Session):
    """A session whose clients call AWS's own endpoints over plain HTTP (give them no ``endpoint_url``): for
    ``answered_in_process``."""

    def client(self, *args: Any, **kwargs: Any) -> Any:  # boto3's own signature
        config = (kwargs.get("config") or Config()).merge(_AWS_OWN_ENDPOINTS)
        return super().client(*args, **{**kwargs, "use_ssl": False, "config": config})
