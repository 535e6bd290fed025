"""Demo mode: an embedded emulated AWS account (moto, in-process) seeded with a small data lake.

Lets a newcomer see every resource return real-looking data without an AWS account.
Requires the ``demo`` extra (``moto[server]``); nothing here is imported on the Lambda path.
"""

from .account import CONFLICTING_ENVIRONMENT, DEMO_REGION, DemoAccount
from .seed import DEMO_CALLER_USER, DENIED_WORKGROUP, DemoInventory, seed_data_lake

__all__ = [
    "CONFLICTING_ENVIRONMENT",
    "DEMO_CALLER_USER",
    "DEMO_REGION",
    "DENIED_WORKGROUP",
    "DemoAccount",
    "DemoInventory",
    "seed_data_lake",
]
