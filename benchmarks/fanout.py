"""Fan-out under an injected AWS latency: run by `worker.py fanout` in a fresh process.

moto's server runs in a process of its own (in this one it would compete for the GIL with the
fan-out it serves, and measure itself), seeded like a busy account (100 buckets, 40 workgroups,
200 query executions, 20 Glue databases of 10 tables, 50 users with a key each, 60 roles), and read as an
IAM user with an identity policy, so discover runs every check a real caller gets (policy simulation and
each bucket's policy included). Its ListBuckets names each bucket's region, as S3 does for a listing asked in
pages (`moto_extensions.BUCKET_REGIONS`), so discover asks no GetBucketLocation: 293 calls (1 listing, 2
identity simulations, 100 listings, 100 object heads, 90 bucket policies). Before (2026-11-24), with a location
per bucket and the reads waiting for every location: 393 calls, discover 0.85-0.91 s and recommendations
0.96-1.03 s on a quiet machine; run after run at load 11-15, 1.00 / 1.44 s and 1.12 / 1.62 s then, 0.55 / 0.68 s
and 0.71 / 0.86 s now (sequential 14.65 s, floor 0.15 s). Since 2026-11-25 the fan-out's slots go to calls, not
to chains of them (`fanout.Chain`): at load 2-4, discover 0.41-0.46 s and recommendations 0.51-0.60 s in three
runs, beside 0.58 / 0.73 s for the chains holding slots, with as many calls in flight at most (`peak_in_flight`:
64, the reads' and the write checks' fan-outs side by side). Every
AWS attempt the server makes then waits `DELAY` seconds in a botocore `before-send` hook before
reaching moto, as a far-away endpoint would. Each fan-out resource is read through the server's
real read path with the result cache off (so permissions://recommendations reads discover,
workgroups and table buckets itself, side by side), and its wall time is set beside two
baselines from the same run:

- sequential: the AWS calls the read made (counted by the same hook) x DELAY, what a
  one-call-at-a-time implementation costs;
- floor: the dependent waves of calls (each needs the one before) x DELAY, what an
  unbounded fan-out would cost.

docs/performance.md budgets three of them; the others are held to a tenth of their sequential time (docs/performance.md:
"a sequential implementation takes 10-40 x longer").

At 0 ms per call a read is bound by CPU, not round trips: `admin://users` is then timed beside a bare boto3 loop
making the same calls one at a time through the same replayed answers (botocore's own cost per call), in
alternating turns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.httpsession import URLLib3Session

import harness

DELAY = 0.05
BUCKETS = 100
WORKGROUPS = 40
EXECUTIONS = 200
DATABASES = 20
TABLES = 10
"""Per database, each in one of the buckets."""
PARTITIONS = 300
MANY_PARTITIONS = "daily_orders"
"""A table of `PARTITIONS` partitions: its table resource makes as many calls as a table of two."""
USERS = 50
ROLES = 60
REGION = "us-east-1"
CPU_BOUND_TURNS = 21
"""Turns of each side at 0 ms per call: a 60 ms read varies by a third from turn to turn on a shared machine."""
SEQUENTIAL_SHARE = 0.1
FLOOR_MULTIPLE = 3
"""Without a stated budget a read is held to a tenth of its calls made one at a time (docs/performance.md: "a sequential
implementation takes 10-40 x longer"), and a read of few calls, whose tenth is near its floor, to 3 x its
floor (the tightest fan-out budget: query history's 0.5 s over a 0.15 s floor)."""


@dataclass(frozen=True)
class Scenario:
    uri: str
    waves: int
    """Dependent call waves on the critical path, e.g. ListWorkGroups -> GetWorkGroup is 2."""
    budget_s: float | None
    """The budget of docs/performance.md; None: see FLOOR_MULTIPLE."""
    size: str


SCENARIOS = (
    # ListBuckets -> ListObjectsV2 -> HeadObject beside ListBuckets -> identity simulation -> GetBucketPolicy
    Scenario("permissions://discover", 3, 0.5, f"{BUCKETS} buckets"),  # tighter than the 1.0 s of the other fan-outs
    # ListWorkGroups | the query workgroup's GetWorkGroup, Athena's simulation -> GetWorkGroup of the rest | its
    # result location's bucket policy and owner (ListBuckets) -> the simulation of writing there
    # (permissions/workgroup_checks.py, results_path.py)
    Scenario("athena://workgroups", 3, 0.4, f"{WORKGROUPS} workgroups"),
    Scenario("athena://query/history?limit=200", 3, 0.5, f"{EXECUTIONS} executions"),
    Scenario("tabulator://buckets", 2, None, f"{DATABASES} databases"),  # GetDatabases -> GetTables
    Scenario("athena://databases", 2, None, f"{DATABASES} databases"),  # ListDataCatalogs -> GetDatabases
    # GetCatalogs (recursive) beside ListDataCatalogs: one wave, whatever the catalogs' depth
    Scenario("athena://catalogs", 1, None, "the account's catalogs"),
    Scenario("admin://users", 3, None, f"{USERS} users"),  # ListUsers -> groups | keys -> GetAccessKeyLastUsed
    Scenario("admin://roles", 2, None, f"{ROLES} roles"),  # ListRoles -> GetRole
    # discover's 3 waves (workgroups' and table buckets' beside), then the table explainers' 3 for the tables its
    # bucket verdicts leave unsettled (at most recommendations.EXPLAINED); issue 41's 2 s. Its calls: 960 when each
    # explainer asked everything again (2026-12-02, 0.88-0.99 s), about 475 since each question is asked once a read
    # (reading/call_memo.py) and 15 tables explained (0.60-0.84 s at load)
    Scenario("permissions://recommendations", 6, 2.0,
             f"{BUCKETS} buckets, {WORKGROUPS} workgroups, {DATABASES} databases"),
    # Glue, LF, workgroup, simulation -> listing, bucket policies, encryption, the results bucket's owner -> one-byte
    # read, head, key, simulation
    Scenario("permissions://tables/sales/orders", 3, None, "one table, one workgroup"),
    # the same, with a partition under the root and one in another bucket: GetPartitions follows GetTable (an
    # Iceberg or projected table calls none), so the partitions' reads end one wave after the root's
    Scenario("permissions://tables/sales/far_orders", 4, None, "one table, two partitions (one in another bucket)"),
    # GetTable -> Lake Formation's calls beside column statistics, one page of partitions, partition indexes and
    # Data Quality's results (a Data Quality result's details would be one wave more; none here)
    Scenario("athena://databases/sales/tables/far_orders", 2, None, "one table, two partitions"),
    # the same calls, however many partitions: one GetPartitions page, never a walk of them
    Scenario(f"athena://databases/sales/tables/{MANY_PARTITIONS}", 2, None, f"one table, {PARTITIONS} partitions"),
)
EXPLAINED_WORKGROUP = "bench-guarded"
"""The workgroup the table explainer checks: its cutoff set and enforced, as athena_query requires."""


CALLER_POLICY = """{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Action": ["s3:*", "athena:*", "glue:*", "iam:Get*", "iam:List*", "iam:Simulate*",
                                 "lakeformation:List*", "lakeformation:GetDataLakeSettings", "kms:GetKeyPolicy"],
   "Resource": "*"},
  {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::bench-bucket-00*/*"}]}"""


def _seed_many_partitions(glue: Any) -> None:
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": MANY_PARTITIONS, "PartitionKeys": [{"Name": "dt", "Type": "string"}], "StorageDescriptor": {
            "Location": "s3://bench-bucket-001/daily/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    days = [{"Values": [f"day-{day:04d}"], "StorageDescriptor": {"Location": f"s3://bench-bucket-001/daily/d={day}/"}}
            for day in range(PARTITIONS)]
    for start in range(0, PARTITIONS, 100):
        glue.batch_create_partition(DatabaseName="sales", TableName=MANY_PARTITIONS,
                                    PartitionInputList=days[start:start + 100])


def _seed(endpoint: str, many_partitions: bool = True) -> dict[str, str]:
    """Seeds the account; returns the benchmark caller's key (an IAM user, as the policy simulator needs)."""
    import boto3

    session = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=REGION)
    s3 = session.client("s3", endpoint_url=endpoint)
    for index in range(BUCKETS):
        bucket = f"bench-bucket-{index:03d}"
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="data/part-0000.csv", Body=b"id,value\n1,2\n")
    athena = session.client("athena", endpoint_url=endpoint)
    for index in range(WORKGROUPS - 1):  # plus "primary"
        athena.create_work_group(Name=f"bench-wg-{index:02d}", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://bench-bucket-000/wg-{index:02d}/"}})
    for index in range(EXECUTIONS):
        athena.start_query_execution(QueryString=f"SELECT {index}", WorkGroup=f"bench-wg-{index % 8:02d}",
                                     ResultConfiguration={"OutputLocation": "s3://bench-bucket-000/q/"})
    athena.create_work_group(Name=EXPLAINED_WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://bench-bucket-001/results/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    glue = session.client("glue", endpoint_url=endpoint)
    glue.create_database(DatabaseInput={"Name": "sales"})
    glue.create_table(DatabaseName="sales", TableInput={"Name": "orders", "StorageDescriptor": {
        "Location": "s3://bench-bucket-001/data/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "far_orders", "PartitionKeys": [{"Name": "dt", "Type": "string"}], "StorageDescriptor": {
            "Location": "s3://bench-bucket-001/data/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    for value, bucket, prefix in (("1", "bench-bucket-001", "data/dt=1/"), ("2", "bench-bucket-002", "far/dt=2/")):
        s3.put_object(Bucket=bucket, Key=f"{prefix}part-0.csv", Body=b"id\n1\n")
        glue.create_partition(DatabaseName="sales", TableName="far_orders", PartitionInput={
            "Values": [value], "StorageDescriptor": {"Location": f"s3://{bucket}/{prefix}"}})
    if many_partitions:  # for the table resource's row; not in the account recommendations' 960 were counted on
        _seed_many_partitions(glue)
    for index in range(DATABASES):
        glue.create_database(DatabaseInput={"Name": f"bench_db_{index:02d}"})
        for table in range(TABLES):
            glue.create_table(DatabaseName=f"bench_db_{index:02d}", TableInput={
                "Name": f"t_{table:02d}", "StorageDescriptor": {
                    "Location": f"s3://bench-bucket-{(index * TABLES + table) % BUCKETS:03d}/t_{table:02d}/"}})
    iam = session.client("iam", endpoint_url=endpoint)
    for index in range(USERS):
        iam.create_user(UserName=f"bench-user-{index:02d}")
        iam.create_access_key(UserName=f"bench-user-{index:02d}")
    for index in range(ROLES):
        iam.create_role(RoleName=f"bench-role-{index:02d}",
                        AssumeRolePolicyDocument='{"Version": "2012-10-17", "Statement": []}')
    iam.create_user(UserName="bench-analyst")
    iam.put_user_policy(UserName="bench-analyst", PolicyName="analyst", PolicyDocument=CALLER_POLICY)
    key = iam.create_access_key(UserName="bench-analyst")["AccessKey"]
    return {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}


def _budget(scenario: Scenario, calls: int) -> float:
    if scenario.budget_s is not None:
        return scenario.budget_s
    return round(max(calls * DELAY * SEQUENTIAL_SHARE, scenario.waves * DELAY * FLOOR_MULTIPLE), 3)


MOTO_SERVER = """
import sys
from aws_data_mcp_demo.emulator.extensions import BUCKET_REGIONS, install_moto_extensions
from moto.server import main
install_moto_extensions(BUCKET_REGIONS)  # BatchGetQueryExecution, Athena's paging, ListBuckets' regions: as AWS
from moto.lakeformation import models, responses
_tags, _listing = models.LakeFormationBackend.get_resource_lf_tags, responses.LakeFormationResponse.list_permissions
def _tags_or_none(self, catalog_id, resource):  # an untagged table: AWS answers no tags, moto a KeyError (a 500)
    try:
        return _tags(self, catalog_id, resource)
    except KeyError:
        return [], [], []
def _list(self):  # grants on LF-tag expressions: AWS lists them (none here), moto rejects the type (a 500)
    if self._get_param("ResourceType") == "LF_TAG_POLICY_TABLE":
        return '{"PrincipalResourcePermissions": []}'
    return _listing(self)
models.LakeFormationBackend.get_resource_lf_tags = _tags_or_none
responses.LakeFormationResponse.list_permissions = _list
main(["-H", "127.0.0.1", "-p", sys.argv[1]])
"""


def _start_moto() -> tuple[subprocess.Popen[bytes], str]:
    server, port = harness.start_server([sys.executable, "-c", MOTO_SERVER], "moto's server")
    return server, f"http://127.0.0.1:{port}"


class FarAwayEndpoint:
    """A `before-send` hook: every attempt waits DELAY, then gets moto's answer to the same request.

    moto's own CPU time per request (several ms, all under one GIL) would otherwise be what the
    benchmark measures; so each distinct request (method, URL, body) is sent to moto once and its
    answer replayed after that, leaving the injected latency and our own work on the clock.
    """

    def __init__(self) -> None:
        self.delay = DELAY
        self.calls: Counter[str] = Counter()
        self.spans: list[tuple[float, float]] = []
        """Each attempt's start and end here, for the most calls in flight at once (the connections they need)."""
        self._answers: dict[tuple[str, str, bytes, str, str], tuple[int, dict[str, str], bytes]] = {}
        self._lock = threading.Lock()
        self._http = URLLib3Session()

    def __call__(self, event_name: str, request: Any, **_: Any) -> AWSResponse:
        started = time.perf_counter()
        body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
        # JSON services' operation is a header (Athena's ListDataCatalogs and Glue's GetDatabases both send `{}` to
        # one endpoint) and the signer's key says whose answer it is (each account's differs)
        target = str(request.headers.get("X-Amz-Target", ""))
        signer = str(request.headers.get("Authorization", "")).partition("Credential=")[2].split("/")[0]
        key = (request.method, request.url, body, target, signer)
        with self._lock:
            self.calls[event_name.split(".", 1)[1]] += 1
            answer = self._answers.get(key)
        if answer is None:
            sent = self._http.send(request)
            answer = (sent.status_code, dict(sent.headers), sent.content)
            with self._lock:
                self._answers[key] = answer
        if self.delay:
            time.sleep(self.delay)
        self.spans.append((started, time.perf_counter()))
        status, headers, content = answer
        return AWSResponse(request.url, status, headers, _Replay(content))


def peak_in_flight(spans: list[tuple[float, float]]) -> int:
    """The most attempts in flight at once: each needs a pooled connection of its own."""
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])  # an end before a start
    peak = running = 0
    for _, change in edges:
        running += change
        peak = max(peak, running)
    return peak


class _Replay:
    def __init__(self, content: bytes) -> None:
        self._content = content

    def stream(self, **_: Any) -> Any:
        yield self._content

    def close(self) -> None:
        """A streamed body (S3's GetObject) is closed by its reader; a replay holds nothing to release."""


def bare_admin_users(iam: Any) -> int:
    """What admin://users asks, the plain boto3 way: one call at a time, paginators as boto3 documents them.
    Returns the number of users, to check it read what the resource read."""
    users = [u for page in iam.get_paginator("list_users").paginate() for u in page["Users"]]
    for user in users:
        name = user["UserName"]
        list(iam.get_paginator("list_groups_for_user").paginate(UserName=name))
        keys = [k for page in iam.get_paginator("list_access_keys").paginate(UserName=name)
                for k in page["AccessKeyMetadata"]]
        for key in keys:
            iam.get_access_key_last_used(AccessKeyId=key["AccessKeyId"])
    return len(users)


def _cpu_bound(mcp: Any, session: Any, endpoint: FarAwayEndpoint, repeats: int) -> dict[str, Any]:
    """admin://users at 0 ms per call vs `bare_admin_users`, alternating turns (the first of each untimed)."""
    import anyio

    iam = session.client("iam")  # built once, as the server's client is
    endpoint.delay = 0.0
    ours: list[float] = []
    bare: list[float] = []
    for turn in range(repeats + 1):
        for name in ("ours", "bare") if turn % 2 else ("bare", "ours"):
            started = time.perf_counter()
            if name == "ours":
                reading = anyio.run(mcp.read, "admin://users", None)
            else:
                counted = bare_admin_users(iam)
            if turn:
                (ours if name == "ours" else bare).append(time.perf_counter() - started)
    if json.loads(reading.text)["count"] != counted:
        raise AssertionError("admin://users and the bare loop read different users")
    return {"uri": "admin://users", "ours_s": sorted(ours), "bare_s": sorted(bare), "users": counted}


def measure(repeats: int) -> dict[str, Any]:
    import anyio

    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.resolve import local_chain

    server, endpoint = _start_moto()
    try:
        os.environ.update(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                          AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION)
        os.environ.update(_seed(endpoint))
        width = int(os.environ.get("AWS_DATA_MCP_FANOUT_WIDTH", Settings.fanout_width))  # to compare widths
        settings = Settings(mode="local", cache_ttl_seconds=0, region=REGION, fanout_width=width,
                            query_workgroups=(EXPLAINED_WORKGROUP,))
        mcp = create_server(settings)
        endpoint_far_away = FarAwayEndpoint()
        local_chain.reset()
        local_chain.session().events.register("before-send", endpoint_far_away)
        anyio.run(mcp.read, "auth://status", None)  # the caller's principal, resolved once per credentials
        calls = endpoint_far_away.calls
        results: dict[str, Any] = {}
        for scenario in SCENARIOS:
            anyio.run(mcp.read, scenario.uri, None)  # records moto's answers: replays cost moto nothing
            walls: list[float] = []
            peak = 0
            for _ in range(repeats):
                calls.clear()
                endpoint_far_away.spans.clear()
                started = time.perf_counter()
                reading = anyio.run(mcp.read, scenario.uri, None)
                walls.append(time.perf_counter() - started)
                peak = max(peak, peak_in_flight(endpoint_far_away.spans))
            if '"error"' in reading.text[:200]:
                raise AssertionError(f"{scenario.uri} answered an error: {reading.text[:300]}")
            made = sum(calls.values())
            results[scenario.uri] = {"wall_s": sorted(walls), "calls": made, "by_operation": dict(calls),
                                     "peak_in_flight": peak, "waves": scenario.waves,
                                     "budget_s": _budget(scenario, made),
                                     "budget_from": "docs/performance.md" if scenario.budget_s is not None else
                                     f"max({SEQUENTIAL_SHARE:g} x sequential, {FLOOR_MULTIPLE} x floor)",
                                     "size": scenario.size, "chars": len(reading.text)}
        cpu_bound = _cpu_bound(mcp, local_chain.session(), endpoint_far_away, max(repeats, CPU_BOUND_TURNS))
        return {"delay_s": DELAY, "width": settings.fanout_width, "scenarios": results, "cpu_bound": cpu_bound}
    finally:
        server.kill()
