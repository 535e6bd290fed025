"""Listings in pages, as AWS serves them and moto 5.2.5 does not (part of ``moto_extensions``).

Glue's ``GetDatabases`` and ``GetTables`` page (moto returns everything at once; ``GetTables`` honours
``AttributesToGet``); opt-in, IAM ``ListUsers`` and S3 ``ListBuckets`` page, the latter naming each bucket's region.
``PAGE_LIMITS`` and ``page`` serve Athena's listings too (``moto_athena``).
"""

from typing import Any

from moto.core.exceptions import JsonRESTError
from moto.core.responses import ActionResult
from moto.glue.responses import GlueResponse
from moto.iam.responses import IamResponse
from moto.s3.responses import S3Response

from aws_data_mcp_demo.emulator.patch import Extension

PAGE_LIMITS: dict[str, int] = {"ListWorkGroups": 50, "ListQueryExecutions": 50, "GetDatabases": 100, "GetTables": 100}
"""The most items one page of these operations holds (AWS's maxima). AWS may return fewer than MaxResults and
callers must follow NextToken: tests lower these to make that paging visible."""


def page(items: list[Any], operation: str, token: str | None, max_results: int | None,
          error: str = "InvalidRequestException") -> tuple[list[Any], str | None]:
    """MaxResults/NextToken paging, which moto 5.2.5 skips for these operations (it returns everything at once)."""
    try:
        start = int(token) if token else 0
    except ValueError:
        raise JsonRESTError(error, f"Invalid NextToken for {operation}") from None
    end = start + min(int(max_results or PAGE_LIMITS[operation]), PAGE_LIMITS[operation])
    return items[start:end], str(end) if end < len(items) else None


def _glue_get_databases(self: GlueResponse) -> ActionResult:
    """GetDatabases in pages (moto returns every database at once)."""
    listed, token = page(self.glue_backend.get_databases(), "GetDatabases", self.parameters.get("NextToken"),
                        self.parameters.get("MaxResults"), error="InvalidInputException")
    return ActionResult({"DatabaseList": [database.as_dict() for database in listed], "NextToken": token})


def _glue_get_tables(self: GlueResponse) -> ActionResult:
    """GetTables in pages, honouring AttributesToGet (NAME, TABLE_TYPE; DEFAULT: the whole table) as Glue does."""
    parameters = self.parameters
    tables = self.glue_backend.get_tables(parameters["DatabaseName"], parameters.get("Expression"))
    listed, token = page(tables, "GetTables", parameters.get("NextToken"), parameters.get("MaxResults"),
                        error="InvalidInputException")
    documents = [table.as_dict() for table in listed]
    if (attributes := parameters.get("AttributesToGet")) and "DEFAULT" not in attributes:
        keep = {"Name", "DatabaseName", "CatalogId"} | ({"TableType"} if "TABLE_TYPE" in attributes else set())
        documents = [{key: value for key, value in document.items() if key in keep} for document in documents]
    return ActionResult({"TableList": documents, "NextToken": token})


def _iam_list_users_in_pages(self: IamResponse) -> ActionResult:
    """ListUsers with MaxItems/Marker, as IAM pages it."""
    users = list(self.backend.list_users(self._get_param("PathPrefix"), None, None))
    start = int(self._get_param("Marker") or 0)
    end = start + int(self._get_param("MaxItems") or 100)
    more = end < len(users)
    return ActionResult({"Users": users[start:end], "IsTruncated": more, **({"Marker": str(end)} if more else {})})


def _s3_list_buckets_in_pages(self: S3Response, regions: bool = False) -> Any:
    """ListBuckets with MaxBuckets/ContinuationToken, as S3 pages it; with `regions`, each bucket's BucketRegion, as
    S3 names it in a listing asked with a parameter (MaxBuckets is one)."""
    self.data["Action"] = "ListAllMyBuckets"
    self._authenticate_and_authorize_s3_action()
    buckets = self.backend.list_buckets(prefix=self._get_param("prefix"), bucket_region=None, max_buckets=None)
    start = int(self._get_param("continuation-token") or 0)
    end = start + int(self._get_param("max-buckets") or 10_000)
    token = {"ContinuationToken": str(end)} if end < len(buckets) else {}
    self.data["Action"] = "ListBuckets"
    return self.serialized(ActionResult({
        "Owner": {"ID": "bcaf1ffd86f41161ca5fb16fd081034f", "DisplayName": "webfile"},
        "Buckets": [{"Name": b.name, "CreationDate": b.creation_date_ISO8601,
                     **({"BucketRegion": b.region_name} if regions else {})} for b in buckets[start:end]],
        **token}))


def _s3_list_buckets_naming_regions(self: S3Response) -> Any:
    return _s3_list_buckets_in_pages(self, regions=True)


GLUE: tuple[Extension, ...] = (
    Extension(GlueResponse, "get_databases", _glue_get_databases),
    Extension(GlueResponse, "get_tables", _glue_get_tables),
)
LISTING_PAGES: tuple[Extension, ...] = (
    Extension(IamResponse, "list_users", _iam_list_users_in_pages),
    Extension(S3Response, "all_buckets", _s3_list_buckets_in_pages),
)
"""Opt-in: IAM ListUsers and S3 ListBuckets in pages (moto answers them in one page whatever is asked), for the
tests that follow those paginators."""

BUCKET_REGIONS: tuple[Extension, ...] = (
    Extension(S3Response, "all_buckets", _s3_list_buckets_naming_regions),
)
"""Opt-in: S3 ListBuckets in pages naming each bucket's region, as S3 answers a listing asked with MaxBuckets
(moto names none), for the benchmarks and the tests that place buckets by it."""
