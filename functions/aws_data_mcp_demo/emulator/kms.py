"""KMS keys made as fast as KMS makes them, in the emulated account (demo and tests only, never in Lambda).

moto 5.2.5 generates an RSA 2048 private key for every key it creates, a symmetric one included (its default for a
key spec it does not sign with), about 0.1 s of CPU each and a second on a busy machine: the demo's keys
(five) spent more time there than the rest of its seed. The key pair is now made when first used (Sign, Verify,
GetPublicKey of an asymmetric key), which the demo's symmetric keys never are.
"""

from __future__ import annotations

from typing import Any

import moto.kms.models as kms_models

from aws_data_mcp_demo.emulator.extensions import Extension

_MOTO_GENERATE = kms_models.generate_private_key


class _KeyPairWhenUsed:
    """moto's private key for `key_spec`, generated on its first use."""

    def __init__(self, key_spec: str) -> None:
        self._key_spec = key_spec
        self._made: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._made is None:
            self._made = _MOTO_GENERATE(self._key_spec)
        return getattr(self._made, name)


def _generate_when_used(key_spec: str) -> Any:
    return _KeyPairWhenUsed(key_spec)


LAZY_KEY_PAIRS: tuple[Extension, ...] = (
    Extension(kms_models, "generate_private_key", _generate_when_used),)  # type: ignore[arg-type]
"""moto's KMS makes a key's private key when first used (installed with the demo account's extensions)."""
