"""pyiceberg's FileIO over the emulated account's S3, in this process (demo and tests only, never in Lambda).

pyiceberg writes and reads an Iceberg table's files (metadata JSON, manifest lists, manifests, Parquet data) through
a FileIO. This one stores them straight into moto's S3 backend, as the lake's other files are seeded, and reads them
back from it: no HTTP round trip and no credentials, so the seed (moto answering in-process) and the demo's Athena
(which authorises the caller itself before it reads) both use it. The account is the ``moto.account-id`` property.
"""

import io
from types import TracebackType
from typing import Any

from moto.s3.models import FakeKey, s3_backends
from pyiceberg.io import PY_IO_IMPL, FileIO, InputFile, InputStream, OutputFile, OutputStream
from pyiceberg.typedef import EMPTY_DICT, Properties

ACCOUNT_PROPERTY = "moto.account-id"


def io_properties(account_id: str) -> dict[str, str]:
    """The catalog or table properties that make pyiceberg read and write `account_id`'s emulated S3."""
    return {PY_IO_IMPL: f"{__name__}.MotoFileIO", ACCOUNT_PROPERTY: account_id}


def _split(location: str) -> tuple[str, str]:
    bucket, _, key = location.removeprefix("s3://").removeprefix("s3a://").partition("/")
    return bucket, key


class _Stored(io.BytesIO):
    """A file being written: stored as one object when it is closed (as a single PutObject would)."""

    def __init__(self, file_io: "MotoFileIO", location: str) -> None:
        super().__init__()
        self._file_io = file_io
        self._location = location

    def close(self) -> None:
        if not self.closed:
            self._file_io.put(self._location, self.getvalue())
        super().close()

    def __enter__(self) -> "_Stored":
        return self

    def __exit__(self, exctype: type[BaseException] | None, excinst: BaseException | None,
                 exctb: TracebackType | None) -> None:
        self.close()


class _Input(InputFile):
    def __init__(self, file_io: "MotoFileIO", location: str) -> None:
        super().__init__(location)
        self._file_io = file_io

    def __len__(self) -> int:
        return int(self._file_io.key(self.location).size)

    def exists(self) -> bool:
        return self._file_io.find(self.location) is not None

    def open(self, seekable: bool = True) -> InputStream:
        return io.BytesIO(self._file_io.key(self.location).value)  # type: ignore[return-value]


class _Output(OutputFile):
    def __init__(self, file_io: "MotoFileIO", location: str) -> None:
        super().__init__(location)
        self._file_io = file_io

    def __len__(self) -> int:
        return int(self._file_io.key(self.location).size)

    def exists(self) -> bool:
        return self._file_io.find(self.location) is not None

    def to_input_file(self) -> InputFile:
        return _Input(self._file_io, self.location)

    def create(self, overwrite: bool = False) -> OutputStream:
        if not overwrite and self.exists():
            raise FileExistsError(self.location)
        return _Stored(self._file_io, self.location)  # type: ignore[return-value]


class MotoFileIO(FileIO):
    """Iceberg files in moto's S3 backend of the account the ``moto.account-id`` property names."""

    def __init__(self, properties: Properties = EMPTY_DICT) -> None:
        super().__init__(properties)
        self._backend: Any = s3_backends[properties[ACCOUNT_PROPERTY]]["aws"]

    def new_input(self, location: str) -> InputFile:
        return _Input(self, location)

    def new_output(self, location: str) -> OutputFile:
        return _Output(self, location)

    def delete(self, location: str | InputFile | OutputFile) -> None:
        path = location if isinstance(location, str) else location.location
        self._backend.delete_object(*_split(path))

    def find(self, location: str) -> FakeKey | None:
        bucket, key = _split(location)
        found = self._backend.get_bucket(bucket).keys.get(key)
        return found if isinstance(found, FakeKey) else None

    def key(self, location: str) -> FakeKey:
        found = self.find(location)
        if found is None:
            raise FileNotFoundError(location)
        return found

    def put(self, location: str, body: bytes) -> None:
        self._backend.put_object(*_split(location), body)
