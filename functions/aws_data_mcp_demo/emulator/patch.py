"""One gap-fill of moto: an attribute of a moto class replaced (``moto_extensions`` installs them)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Extension:
    """One attribute of a moto class replaced: ``owner.name = replacement``."""

    owner: type
    name: str
    replacement: Callable[..., Any]
