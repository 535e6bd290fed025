"""The hosted-caller fixtures every test here uses: a fresh exchange cache, STS faults, the callers' roles."""

from .hosted_support import fresh_exchanges_fixture, roles_fixture, sts_fixture

__all__ = ["fresh_exchanges_fixture", "roles_fixture", "sts_fixture"]
