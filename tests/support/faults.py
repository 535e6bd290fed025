"""Faults and call counting, injected into a caller's own boto3 session below botocore's retry logic."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import botocore.session
from botocore.awsrequest import AWSResponse


class _RawBody:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._body


def _error_response(protocol: str, status: int, code: str, message: str) -> AWSResponse:
    """An AWS error exactly as the service's wire protocol carries it, so botocore parses and retries it."""
    if protocol == "json":
        body = json.dumps({"__type": code, "message": message}).encode()
        headers = {"x-amzn-errortype": code, "content-type": "application/x-amz-json-1.1"}
    elif protocol == "query":
        body = (f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message>"
                "</Error><RequestId>fault</RequestId></ErrorResponse>").encode()
        headers = {"content-type": "text/xml"}
    else:  # rest-xml (S3)
        body = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
        headers = {"content-type": "application/xml"}
    return AWSResponse("https://fault.invalid/", status, headers, _RawBody(body))


@functools.cache
def _protocol(service: str) -> str:
    """The service's wire protocol, from its model: read once per run (a fresh session re-reads every model file)."""
    return str(botocore.session.get_session().get_service_model(service).protocol)


class AwsFaults:
    """Faults per AWS operation in the local caller's session, below botocore's retry logic.

    `fail("athena.GetWorkGroup", "AccessDeniedException", when=lambda r: b"finance" in r.body)` fails the
    matching attempts; `times=2` only the first two (throttling then success); `delay(...)` sleeps before
    the real call. `calls` counts every attempt by "service.Operation", so a test can assert that a
    cached read or a refused caller made no AWS call at all. One `before-send` hook is registered before
    any client exists (clients copy the session's hooks when they are made); rules may be added any time.
    """

    def __init__(self, session: Any) -> None:
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._rules: list[tuple[str, Callable[[Any], AWSResponse | None]]] = []
        self.gates: list[Gate] = []
        session.events.register("before-send", self._dispatch)

    def _dispatch(self, event_name: str, request: Any, **_: Any) -> AWSResponse | None:
        operation = event_name.split(".", 1)[1]
        with self._lock:
            self.calls[operation] += 1
            rules = list(self._rules)
        for target, rule in rules:
            if operation == target or operation.startswith(target + "."):
                answer = rule(request)
                if answer is not None:
                    return answer
        return None

    def total(self, prefix: str = "") -> int:
        return sum(count for name, count in self.calls.items() if name.startswith(prefix))

    def fail(self, operation: str, code: str, *, status: int = 400, message: str = "injected fault",
             when: Callable[[Any], bool] | None = None, times: int | None = None) -> None:
        service = operation.split(".", 1)[0]
        protocol = _protocol(service)
        remaining = [times]

        def respond(request: Any) -> AWSResponse | None:
            if when is not None and not when(request):
                return None
            with self._lock:
                if remaining[0] is not None:
                    if remaining[0] <= 0:
                        return None
                    remaining[0] -= 1
            return _error_response(protocol, status, code, message)

        self._rules.append((operation, respond))

    def throttle(self, operation: str, *, times: int | None = None) -> None:
        code = "SlowDown" if operation.startswith("s3.") else "ThrottlingException"
        self.fail(operation, code, status=503 if operation.startswith("s3.") else 400, times=times)

    def delay(self, operation: str, seconds: float) -> None:
        """`operation` may be "service.Operation" or a bare service name ("athena") for all its operations."""
        def wait(request: Any) -> None:
            time.sleep(seconds)

        self._rules.append((operation, wait))

    def overlap(self, *operations: str, at_once: int, patience: float = 30.0) -> Overlap:
        """Hold each call of `operations` until `at_once` of them are held together, then let every call through:
        a deterministic proof that they run side by side, where a timer only suggests it. Calls made one after
        another never meet: the first waits out `patience`, the rest pass, and `peak` stays below `at_once`."""
        meeting = Overlap(at_once, patience)
        for operation in operations:
            self._rules.append((operation, meeting.arrive))
        return meeting

    def waves(self, *operations: str, seconds: float = 0.5) -> Waves:
        """Delay each call of `operations` by `seconds` and record which calls had ended before it began: `count` is
        the read's dependent waves (a call's wave is one more than the latest wave that ended before it started).
        What is asserted is an order of events, not a time: the delay only keeps one wave's calls apart from the
        next one's."""
        waves = Waves(seconds)
        for operation in operations:
            self._rules.append((operation, waves.call))
        return waves

    def hold(self, operation: str) -> Gate:
        """Hold every call of `operation` until `release()` (the fixture releases them at the end of the test): an
        endpoint that has not answered yet, however long the caller waits, so "answered before it" is a fact."""
        gate = Gate()
        self.gates.append(gate)
        self._rules.append((operation, gate.enter))
        return gate

    def release(self) -> None:
        for gate in self.gates:
            gate.release()


class Overlap:
    """Calls meeting until `at_once` are in flight together (see `AwsFaults.overlap`)."""

    def __init__(self, at_once: int, patience: float) -> None:
        self.at_once = at_once
        self.peak = 0
        self._patience = patience
        self._waiting = 0
        self._open = False
        self._condition = threading.Condition()

    def arrive(self, request: Any) -> None:
        with self._condition:
            self._waiting += 1
            self.peak = max(self.peak, self._waiting)
            if self._waiting >= self.at_once:
                self._open = True
                self._condition.notify_all()
            if not self._condition.wait_for(lambda: self._open, self._patience):
                self._open = True  # one call waited in vain: they are not side by side, let the rest pass
            self._waiting -= 1


class Waves:
    """Dependent waves of calls (see `AwsFaults.waves`)."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._lock = threading.Lock()
        self._ended: list[int] = []
        """The wave of each call that has ended, in the order they ended."""

    @property
    def count(self) -> int:
        with self._lock:
            return max(self._ended, default=0)

    def call(self, request: Any) -> None:
        with self._lock:
            wave = 1 + max(self._ended, default=0)
        time.sleep(self._seconds)
        with self._lock:
            self._ended.append(wave)


class Gate:
    """Calls held until `release()` (see `AwsFaults.hold`): `held` counts those that arrived, `passed` those let
    through."""

    def __init__(self) -> None:
        self.held = 0
        self.passed = 0
        self._released = threading.Event()
        self._lock = threading.Lock()

    def enter(self, request: Any) -> None:
        with self._lock:
            self.held += 1
        self._released.wait(120)
        with self._lock:
            self.passed += 1

    def release(self) -> None:
        self._released.set()
