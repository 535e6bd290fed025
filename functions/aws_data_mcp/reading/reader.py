"""Reading one URI: the single code path behind both `resources/read` and `get_resource`.

Because both edges call `ResourceReader.read`, they return the same bytes and the
same error codes by construction.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode

import anyio
from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.aws import deadline_scope
from aws_data_mcp.config import Account, Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo, from_aws_error, iam_action_name
from aws_data_mcp.explainer.uris import explainer_of
from aws_data_mcp.identity import accounts
from aws_data_mcp.identity.accounts import EVERY, ORG_WIDE_URIS, caller_in, provenance
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.observability import logger, record_read
from aws_data_mcp.reading.cache import ResultCache
from aws_data_mcp.reading.call_memo import read_scope
from aws_data_mcp.reading.deadlines import request_budget
from aws_data_mcp.reading.fanout import fan_out
from aws_data_mcp.registry import Completable, Registry, ResourceRequest, ResourceSpec
from aws_data_mcp.server.cursors import InvalidCursor, decode_cursor, encode_cursor
from aws_data_mcp.server.rendering import to_json, within_budget

MAX_URI_LENGTH = 2048
ASSEMBLY_MARGIN_SECONDS = 0.5
"""Kept from a read's budget after the AWS deadline, to assemble and render a partial answer."""


@dataclass(frozen=True)
class Reading:
    spec: ResourceSpec
    uri: str
    """The URI as resolved (canonical form of what the client sent)."""
    text: str
    fresh_seconds: float | None = None
    """How long this caller's cached result stays fresh here (0: not cached); None: not a cached kind of read."""


class Resolved(NamedTuple):
    value: Mapping[str, Any]
    fresh_seconds: float | None


class ResourceReader:
    def __init__(self, registry: Registry, settings: Settings) -> None:
        self.registry = registry
        self.settings = settings
        self._categories = {spec.category for spec in registry}
        self.cache: ResultCache[Mapping[str, Any]] = ResultCache(settings.cache_ttl_seconds)
        self._documents: ResultCache[str] = ResultCache(settings.cache_ttl_seconds)
        """Rendered answers of the resources that need no caller and call no AWS (configuration, templates):
        the same for everyone, so keyed by what was asked (and the resolver answering it) alone, and kept as
        `freshness` tells clients."""

    def canonical(self, raw: str) -> str:
        """Forgive what is unambiguous (whitespace, scheme case, `auth/status`), never guess."""
        uri = raw.strip()
        if "://" in uri:
            scheme, rest = uri.split("://", 1)
            return f"{scheme.lower()}://{rest}"
        head, sep, rest = uri.partition("/")
        if sep and head.lower() in self._categories:
            return f"{head.lower()}://{rest}"
        return uri

    def _invalid(self, uri: str, code: ErrorCode, message: str) -> ResourceFailure:
        return ResourceFailure(
            code,
            message,
            details=["Call get_resource() with no uri, or list resources, to see every valid URI."],
            valid_uris=self.registry.nearest(uri),
        )

    def resolve(self, raw: str) -> tuple[ResourceSpec, Mapping[str, str], Mapping[str, str]]:
        """The spec, template arguments and query parameters for a URI, or a typed failure."""
        listed = self.registry.get(raw) if isinstance(raw, str) else None
        if listed is not None and listed.template is None:  # a static URI sent as listed: nothing to work out
            return listed, {}, {}
        if not isinstance(raw, str) or not raw.strip():
            raise self._invalid("", ErrorCode.INVALID_URI, "A resource URI is required, e.g. auth://status")
        if len(raw) > MAX_URI_LENGTH:
            raise self._invalid(raw[:100], ErrorCode.INVALID_URI,
                                f"URI longer than {MAX_URI_LENGTH} characters ({len(raw)})")
        uri = self.canonical(raw)
        base, _, query_text = uri.partition("?")
        if "://" not in base:
            raise self._invalid(base, ErrorCode.INVALID_URI,
                                f"{echo(raw.strip())!r} is not a resource URI (expected scheme://path)")
        if base.split("://", 1)[0] not in self._categories:
            raise self._invalid(base, ErrorCode.INVALID_URI, f"Unknown URI scheme in {echo(base)!r}")
        match = self.registry.match(base)
        if match is None:
            raise self._invalid(base, ErrorCode.NOT_FOUND, f"No resource at {echo(base)!r}")
        query = dict(parse_qsl(query_text, keep_blank_values=True)) if query_text else {}
        unknown = sorted(set(query) - {*match.spec.accepted_query, accounts.PARAMETER})
        if unknown:
            accepted = ", ".join(match.spec.accepted_query) or "none"
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                                  f"{match.spec.uri} takes no query parameter {echo(', '.join(unknown))!r}",
                                  details=[f"Query parameters accepted here: {accepted}."])
        for argument, check in match.spec.argument_checks.items():
            check(match.args[argument])
        self._account(match.spec, query)  # an unlisted account, an ARN: refused before the caller is resolved
        return match.spec, match.args, query

    def _account(self, spec: ResourceSpec, query: Mapping[str, str]) -> accounts.Choice:
        return accounts.chosen(self.settings, query.get(accounts.PARAMETER), org_wide=spec.uri in ORG_WIDE_URIS)

    async def read(
        self, raw: str, resolve_caller: Callable[[], Caller], seconds_left: float | None = None
    ) -> Reading:
        """Read `raw` as the caller `resolve_caller()` returns, within the request's budget (`seconds_left` before
        its edge deadline, never more than the request timeout).

        Returns its JSON text, or raises a `ResourceFailure`: every other failure (AWS,
        timeout, a resolver bug, unserialisable output) is mapped onto that vocabulary here.
        """
        started = time.perf_counter()
        spec: ResourceSpec | None = None
        args: Mapping[str, str] = {}
        try:
            spec, args, query = self.resolve(raw)
            uri = self.canonical(raw)
            budget = request_budget(seconds_left, self.settings.request_timeout_seconds)
            text, fresh = await self._read(spec, args, query, uri.partition("?")[0], resolve_caller, budget)
        except ResourceFailure as failure:
            record_read(spec.uri if spec else "unknown", time.perf_counter() - started, failure.code.value)
            failure.uri = raw if isinstance(raw, str) else None
            if failure.code is ErrorCode.ACCESS_DENIED and failure.explain is None:
                failure.explain = explainer_of(args)
            raise
        record_read(spec.uri, time.perf_counter() - started, None)
        return Reading(spec, uri, text, fresh)

    async def _read(
        self,
        spec: ResourceSpec,
        args: Mapping[str, str],
        query: Mapping[str, str],
        base_uri: str,
        resolve_caller: Callable[[], Caller],
        budget: float,
    ) -> tuple[str, float | None]:
        try:
            if spec.requires != "none" or spec.aws_calls:
                # The credential chain and boto3 block: off the event loop, bounded by the request budget.
                # AWS calls (retries included) stop a little earlier, so a resolver can still answer with
                # what finished and mark the rest `timeout` instead of losing the whole read.
                deadline = time.monotonic() + budget - min(ASSEMBLY_MARGIN_SECONDS, budget / 5)
                with anyio.fail_after(budget):
                    result = await anyio.to_thread.run_sync(self._resolve_by, spec, args, query, resolve_caller,
                                                            deadline, abandon_on_cancel=True)
            else:
                return self._document(spec, args, query, base_uri), None
            return self._render(spec, result.value, base_uri, query), result.fresh_seconds
        except ResourceFailure:
            raise
        except TimeoutError as exc:
            raise ResourceFailure(ErrorCode.TIMEOUT, f"{spec.uri} did not complete within {budget:.1f} s",
                                  details=["Retry later."]) from exc
        except (ClientError, BotoCoreError) as exc:
            operation = iam_action_name(getattr(exc, "operation_name", "") or "")
            action = next((a for a in spec.aws_calls if operation and a.endswith(":" + operation)), spec.uri)
            raise from_aws_error(exc, action) from exc
        except Exception as exc:
            logger.exception("resolver failed", extra={"resource": spec.uri})
            raise ResourceFailure(ErrorCode.INTERNAL, f"Internal error while reading {spec.uri}",
                                  details=["This is a server bug; the logs carry the details."]) from exc

    def _document(self, spec: ResourceSpec, args: Mapping[str, str], query: Mapping[str, str], base_uri: str) -> str:
        """A resource that needs no caller and no AWS, rendered once per cache TTL (every warm read of it would
        otherwise rebuild and re-encode the same document)."""
        def render() -> str:
            return self._render(spec, self._resolve(spec, args, query, self._nobody()).value, base_uri, query)

        if not (spec.cacheable and self._documents.enabled):
            return render()
        key = (spec.uri, spec.resolver, tuple(sorted(args.items())), tuple(sorted(query.items())))
        return self._documents.get_or_compute(key, render)[0]

    async def complete(
        self,
        spec: Completable,
        argument: str,
        chosen: Mapping[str, str],
        prefix: str,
        resolve_caller: Callable[[], Caller],
        seconds_left: float | None = None,
    ) -> list[str]:
        """Values for one argument of a template or prompt, given the arguments already `chosen`: a hint, so any
        failure (no caller, denied, slow) offers nothing. The caller is resolved only where the spec needs one."""
        if argument == accounts.PARAMETER and isinstance(spec, ResourceSpec):  # every resource takes `?account=`
            org_wide = [EVERY] if spec.uri in ORG_WIDE_URIS else []
            return [name for name in [*accounts.listed_names(self.settings), *org_wide] if name.startswith(prefix)]
        completer = spec.completions.get(argument)
        if completer is None:
            return []
        budget = request_budget(seconds_left, self.settings.request_timeout_seconds)

        def run(caller: Caller) -> list[str]:
            request = ResourceRequest(dict(chosen), {}, caller, self.settings, self.registry,
                                      related=lambda uri: self._related(uri, caller))
            return sorted(completer(request, prefix))

        def run_as_caller(deadline: float) -> list[str]:
            with deadline_scope(deadline):
                return run(resolve_caller())

        try:
            if spec.requires == "none":
                return run(self._nobody())
            with anyio.fail_after(budget):
                return await anyio.to_thread.run_sync(run_as_caller, time.monotonic() + budget,
                                                      abandon_on_cancel=True)
        except (ResourceFailure, TimeoutError, ClientError, BotoCoreError):
            return []

    def _nobody(self) -> Caller:
        return Caller(self.settings.auth_mode, None, self.settings.region, "not needed by this resource")

    def _resolve_by(
        self,
        spec: ResourceSpec,
        args: Mapping[str, str],
        query: Mapping[str, str],
        resolve_caller: Callable[[], Caller],
        deadline: float,
    ) -> Resolved:
        """In a worker thread: resolve the caller, then the resource, all within `deadline`."""
        choice = self._account(spec, query)
        with deadline_scope(deadline), accounts.reading_in(choice):
            home = resolve_caller()
            with read_scope(home.identity_digest):  # each AWS question asked once in this read
                return self._resolve_as(spec, args, query, home, choice)

    def _resolve_as(self, spec: ResourceSpec, args: Mapping[str, str], query: Mapping[str, str], home: Caller,
                    choice: accounts.Choice) -> Resolved:
        """The read as the resolved caller, within its memo."""
        if choice == EVERY:
            return self._every_account(spec, args, query, home)
        caller = caller_in(home, choice)
        if spec.requires != "none":
            caller.require_session()
        resolved = self._resolve(spec, args, query, caller)
        if choice is None:
            return resolved
        return Resolved({**resolved.value, "from_account": provenance(caller, choice)}, resolved.fresh_seconds)

    def _every_account(self, spec: ResourceSpec, args: Mapping[str, str], query: Mapping[str, str],
                       home: Caller) -> Resolved:
        """`?account=*`: the view read in every listed account side by side, in parallel, each entry labelled with
        its account; an account that refuses is that account's error, never the whole answer's."""
        home.require_session()
        field = spec.list_field or "entries"

        def read_in(account: Account) -> Resolved:
            with accounts.reading_in(account):
                there = caller_in(home, account)
                there.require_session()
                return self._resolve(spec, args, {**query, accounts.PARAMETER: account.name}, there)

        outcomes = fan_out(read_in, accounts.listed(self.settings), action=lambda a: f"{spec.uri} in account {a.name}",
                           width=self.settings.fanout_width)
        entries: list[Any] = []
        summary: list[dict[str, Any]] = []
        fresh: list[float] = []
        for outcome in outcomes:
            account = outcome.item
            where = {"name": account.name, "id": account.id}
            if outcome.error is not None or outcome.value is None:
                failure = outcome.error or ResourceFailure(ErrorCode.INTERNAL, "no answer")
                summary.append({**where, "error": failure.payload()})
                continue
            value = outcome.value.value
            items = value.get(field, []) if spec.list_field else [value]
            entries += [{"account": account.name, **item} if isinstance(item, Mapping)
                        else {"account": account.name, "value": item} for item in items]
            summary.append({**where, "count": len(items)})
            fresh.append(outcome.value.fresh_seconds or 0.0)
        return Resolved({"account": EVERY, "accounts": summary, field: entries}, min(fresh, default=0.0))

    def _resolve(
        self, spec: ResourceSpec, args: Mapping[str, str], query: Mapping[str, str], caller: Caller
    ) -> Resolved:
        """Run the resolver, through the per-caller cache for AWS-reading resources.

        The cursor is not part of the key: every page of a list comes from one cached result.
        """
        digest = caller.identity_digest
        memo = None if digest is None or not self.cache.enabled else (
            lambda key, compute: self.cache.get_or_compute(
                (digest, query.get(accounts.PARAMETER), "remembered", key), compute)[0])
        request = ResourceRequest(args, query, caller, self.settings, self.registry,
                                  related=lambda uri: self._related(uri, caller), memo=memo)
        if spec.requires == "none" or not spec.cacheable or digest is None or not self.cache.enabled:
            return Resolved(spec.resolver(request), None)
        key = (digest, spec.uri, tuple(sorted(args.items())),
               tuple(sorted((k, v) for k, v in query.items() if k != "cursor")))
        return Resolved(*self.cache.get_or_compute(key, lambda: spec.resolver(request)))

    def _related(self, uri: str, caller: Caller) -> Mapping[str, Any]:
        spec, args, query = self.resolve(uri)
        return self._resolve(spec, args, query, caller).value

    def _render(self, spec: ResourceSpec, result: Mapping[str, Any], base_uri: str, query: Mapping[str, str]) -> str:
        """JSON within the character budget: a pageable list is cut JSON-safely, keeping its total and a next URI.

        The first page carries the document around the list; later pages carry only the list and `page`.
        What cannot fit (one document, one item, the document around the list) is never cut into invalid
        JSON: it is answered whole, with `over_budget` saying by how much and why.
        """
        budget = self.settings.response_char_budget
        if spec.list_field is None:
            return within_budget(result, budget, "a single document is answered whole: cut, it would be invalid")
        items = list(result[spec.list_field])
        kept = {key: value for key, value in query.items() if key != "cursor"}  # the next page is of the same list
        try:
            offset = decode_cursor(query.get("cursor"), len(items), query.get(accounts.PARAMETER))
        except InvalidCursor as exc:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, str(exc),
                                  details=[f"Start again from {base_uri}, then follow page.next_uri."]) from exc
        around = result if offset == 0 else {}

        def page(count: int) -> dict[str, Any]:
            end = offset + count
            cursor = encode_cursor(end, query.get(accounts.PARAMETER))
            next_uri = f"{base_uri}?{urlencode({**kept, 'cursor': cursor})}" if end < len(items) else None
            info = {"field": spec.list_field, "total": len(items), "offset": offset, "returned": count,
                    "next_uri": next_uri}
            return {**around, spec.list_field: items[offset:end], "page": info}

        remaining = len(items) - offset
        text = to_json(page(remaining))
        if len(text) <= budget:
            return text
        low, high = 0, remaining - 1  # the largest count that fits; at least one item so paging always advances
        while low < high:
            middle = (low + high + 1) // 2
            if len(to_json(page(middle))) <= budget:
                low = middle
            else:
                high = middle - 1
        count = min(max(low, 1), remaining)
        reason = (f"one item of {spec.list_field} is larger than the budget: a page holds at least one item"
                  if count and len(to_json(page(0))) <= budget else
                  f"the document around {spec.list_field} is larger than the budget; later pages carry only the list")
        return within_budget(page(count), budget, reason)

