"""A check from outside the demo's own cases: the real-world policy patterns of the corpus
(support/policy_patterns.py), which the demo lake was not built around, each put on a table's bucket (or its
object's KMS key) in the emulated account, for an IAM user of its own holding the pattern's identity policy; the
table's explainer read through MCP as that user; its verdict on the table's data (s3:ListBucket, s3:GetObject,
kms:Decrypt) compared with @cloud-copilot/iam-simulate's on the requests Athena makes for that user, in the context
AWS documents for a forward access session (aws:CalledVia, no network keys, aws:RequestedRegion, and
kms:ViaService / kms:CallerAccount on the key).

The explainer never says `allowed` where the judge refuses; it says `denied` only where the judge refuses, or where
AWS's NotPrincipal page refuses and the judge reads NotPrincipal otherwise (SETTLED in tests/judge/test_iam_judge.py);
`unknown` only with what would settle it. The figure (cases, requests, each kind of answer) is printed with `-s`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import boto3
import pytest
from mcp import Client
from moto.iam.models import iam_backends
from moto.s3.models import s3_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp_demo.access.request_context import DEMO_VPC_ENDPOINT
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.enterprise import LAKE_ACCOUNT
from aws_data_mcp_demo.account.lake_tables import TableFiles, in_process_store, put_table
from aws_data_mcp_demo.account.seed_data import ADMIN_ROLE, QUERY_WORKGROUPS, Table
from support.iam_judge import Request, judge, skip_without_judge
from support.policy_patterns import ALICE, BOB, DAVE, HOME, KEY, OTHER, PATTERNS, VPCE, Pattern
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, skip_without_judge()]
DATABASE = "outside"
PREFIX = "reports/2026/"
OBJECT = f"{PREFIX}q1.csv"
READS = ("s3:GetObject", "s3:ListBucket", "kms:Decrypt")
ATHENA = "athena.amazonaws.com"


@dataclass(frozen=True)
class Case:
    """One pattern as a table of its own: its bucket, owner, policies and the user who reads it."""

    pattern: Pattern
    index: int

    @property
    def table(self) -> str:
        return f"case_{self.index:02d}"

    @property
    def bucket(self) -> str:
        return f"outside-case-{self.index:02d}"

    @property
    def user(self) -> str:
        return f"outside-reader-{self.index:02d}"

    @property
    def first(self) -> Request:
        return self.pattern.requests[0]

    @property
    def encrypted(self) -> bool:
        return self.first.key_policy

    @property
    def foreign(self) -> bool:
        return self.first.owner == OTHER


def _reads_as_home_caller(pattern: Pattern) -> bool:
    """A pattern about reading a table's data (or its key) by a caller of the home account."""
    return any(r.principal in (ALICE, DAVE) and r.action in READS for r in pattern.requests) and not any(
        "home/" in r.resource for r in pattern.requests)


CASES = [Case(pattern, i) for i, pattern in enumerate(p for p in PATTERNS if _reads_as_home_caller(p))]


def _rewritten(document: Any, case: Case, account: str, key_arn: str | None) -> Any:
    """A corpus document in the emulated account: the corpus's reader (alice, her role, dave) is the case's user,
    bob and his role the demo's admins, its accounts, bucket, endpoint and key the case's."""
    if document is None:
        return None
    user = f"arn:aws:iam::{account}:user/{case.user}"
    text = json.dumps(document)
    for old, new in ((ALICE, user), (f"arn:aws:iam::{HOME}:role/analyst", user), (DAVE, user),
                     (BOB, f"arn:aws:sts::{account}:assumed-role/{ADMIN_ROLE}/bob"),
                     (f"arn:aws:iam::{HOME}:role/admin", f"arn:aws:iam::{account}:role/{ADMIN_ROLE}"),
                     (f"arn:aws:iam::{HOME}:role/adm*", f"arn:aws:iam::{account}:role/demo-adm*"),
                     (HOME, account), (OTHER, LAKE_ACCOUNT), ("docs-bucket", case.bucket),
                     (VPCE, DEMO_VPC_ENDPOINT), *(((KEY, key_arn),) if key_arn else ())):
        text = text.replace(old, new)
    return json.loads(text)


def _identity(case: Case, account: str, key_arn: str | None) -> list[dict[str, Any]]:
    """The user's identity policies: the pattern's own, and what any reader of the table holds besides (Glue and
    Athena, IAM's simulation of its own policies; S3 reads of the case's bucket where the pattern is a key's)."""
    own = [_rewritten(document, case, account, key_arn) for document in case.first.identity]
    besides = [{"Effect": "Allow", "Action": ["glue:Get*", "athena:*", "lakeformation:GetDataAccess"],
                "Resource": "*"},
               {"Effect": "Allow", "Action": "iam:SimulatePrincipalPolicy",
                "Resource": f"arn:aws:iam::{account}:user/{case.user}"}]
    if case.encrypted:
        besides.append({"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
                        "Resource": [f"arn:aws:s3:::{case.bucket}", f"arn:aws:s3:::{case.bucket}/*"]})
    return [*own, {"Version": "2012-10-17", "Statement": besides}]


@dataclass
class Placed:
    """A case as put in the emulated account."""

    case: Case
    keys: tuple[str, str]
    identity: list[dict[str, Any]]
    bucket_policy: dict[str, Any] | None
    key_arn: str | None
    key_policy: dict[str, Any] | None


def _place(case: Case, demo: DemoAccount, admin: Callable[[str], Any]) -> Placed:
    account, region = demo.account_id, demo.region
    owner = LAKE_ACCOUNT if case.foreign else account
    key_arn = key_policy = None
    if case.encrypted:
        key_arn = admin("kms").create_key(Description=f"outside case {case.index}")["KeyMetadata"]["Arn"]
        key_policy = _rewritten(case.first.resource_policy, case, account, key_arn)
        admin("kms").put_key_policy(KeyId=key_arn, PolicyName="default", Policy=json.dumps(key_policy))
    s3_backends[owner]["aws"].create_bucket(case.bucket, region)
    table = Table(DATABASE, case.table, case.bucket, PREFIX, "csv", case.pattern.name,
                  (("id", "string", "Id"), ("note", "string", "Note")))
    files = TableFiles(table, MappingProxyType({"q1.csv": b"id,note\n1,a\n2,b\n"}), MappingProxyType({"": 2}))
    put_table(in_process_store(owner), admin("glue"), files)
    if key_arn:
        s3_backends[owner]["aws"].put_object(case.bucket, OBJECT, files.files["q1.csv"], encryption="aws:kms",
                                             kms_key_id=key_arn)
    bucket_policy = None if case.encrypted else _rewritten(case.first.resource_policy, case, account, key_arn)
    if bucket_policy is not None:
        s3_backends[owner]["aws"].put_bucket_policy(case.bucket, json.dumps(bucket_policy).encode())
    identity = _identity(case, account, key_arn)
    iam = iam_backends[account]["aws"]
    iam.create_user(region, case.user)
    for i, document in enumerate(identity):
        iam.put_user_policy(case.user, f"case-{i}", json.dumps(document))
    key = iam.create_access_key(case.user)
    return Placed(case, (key.access_key_id, key.secret_access_key), identity, bucket_policy, key_arn, key_policy)


@pytest.fixture(scope="module")
def placed(demo: DemoAccount) -> list[Placed]:
    iam = iam_backends[demo.account_id]["aws"]
    iam.create_user(demo.region, "outside-administrator")
    iam.put_user_policy("outside-administrator", "administrator", json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key("outside-administrator")
    session = boto3.Session(aws_access_key_id=key.access_key_id, aws_secret_access_key=key.secret_access_key,
                            region_name=demo.region)

    def admin(service: str) -> Any:
        return session.client(service, endpoint_url=demo.endpoint_url)

    admin("glue").create_database(DatabaseInput={"Name": DATABASE, "Description": "Policy patterns, one a table."})
    return [_place(case, demo, admin) for case in CASES]


def _athena_requests(found: Placed, account: str, region: str) -> list[Request]:
    """The requests Athena makes to read the table as the user, in the context AWS gives a forward access
    session (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_forward_access_sessions.html)."""
    case = found.case
    user = f"arn:aws:iam::{account}:user/{case.user}"
    owner = LAKE_ACCOUNT if case.foreign else account
    context = {"aws:PrincipalArn": user, "aws:PrincipalAccount": account, "aws:PrincipalType": "User",
               "aws:username": case.user, "aws:SecureTransport": "true", "aws:ViaAWSService": "true",
               "aws:CalledVia": [ATHENA], "aws:CalledViaFirst": ATHENA, "aws:CalledViaLast": ATHENA,
               "aws:RequestedRegion": region}
    bucket = f"arn:aws:s3:::{case.bucket}"
    requests = [Request(user, "s3:ListBucket", bucket, found.identity, found.bucket_policy, owner,
                        {**context, "s3:prefix": PREFIX}),
                Request(user, "s3:GetObject", f"{bucket}/{OBJECT}", found.identity, found.bucket_policy, owner,
                        context)]
    if found.key_arn:
        requests.append(Request(user, "kms:Decrypt", found.key_arn, found.identity, found.key_policy, account,
                                {**context, "kms:ViaService": f"s3.{region}.amazonaws.com",
                                 "kms:CallerAccount": account}, key_policy=True))
    return requests


def _storage_verdict(explained: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    links = [entry for entry in explained["links"] if entry["check"] in READS]
    verdicts = {entry["verdict"] for entry in links}
    return ("denied" if "denied" in verdicts else "unknown" if "unknown" in verdicts else "allowed"), links


def _notprincipal(found: Placed) -> bool:
    return any("NotPrincipal" in s for s in (found.bucket_policy or {}).get("Statement", []))


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch, demo: DemoAccount) -> Iterator[Callable[[tuple[str, str]], None]]:
    """Make the local credential chain act as a case's user."""
    def act_as(keys: tuple[str, str]) -> None:
        for name, value in demo.caller_environment().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", keys[0])
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", keys[1])
        local_chain.reset()

    yield act_as


async def test_patterns_outside_the_demo_read_as_the_judge_reads_athena(
        demo: DemoAccount, placed: list[Placed], reader: Callable[[tuple[str, str]], None]) -> None:
    explained: dict[int, dict[str, Any]] = {}
    for found in placed:
        reader(found.keys)
        settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, cache_ttl_seconds=0,
                            request_timeout_seconds=300)
        with ServerThread(settings) as server:
            async with Client(server.url, mode="2026-07-28") as client:
                answer = await client.read_resource(f"permissions://tables/{DATABASE}/{found.case.table}")
        explained[found.case.index] = json.loads(answer.contents[0].text)
    asked = {found.case.index: _athena_requests(found, demo.account_id, demo.region) for found in placed}
    verdicts = iter(judge(request for requests in asked.values() for request in requests))
    judged = {index: [next(verdicts) for _ in requests] for index, requests in asked.items()}
    wrong: list[Any] = []
    counted: dict[str, list[str]] = {"agree": [], "unknown": [], "settled": []}
    for found in placed:
        index, name = found.case.index, found.case.pattern.name
        said, links = _storage_verdict(explained[index])
        refused = [r.action for r, v in zip(asked[index], judged[index], strict=True) if v != "Allowed"]
        aws = "denied" if refused else "allowed"
        if said == aws:
            counted["agree"].append(name)
        elif said == "unknown" and all(entry.get("settle") for entry in links if entry["verdict"] == "unknown"):
            counted["unknown"].append(name)
        elif said == "denied" and _notprincipal(found):
            counted["settled"].append(name)
        else:
            wrong.append((name, said, aws, refused, [(e["check"], e["verdict"]) for e in links],
                          explained[index]["summary"]))
    figure = (f"{len(placed)} patterns outside the demo, {sum(map(len, asked.values()))} Athena requests judged: "
              f"{len(counted['agree'])} agree, {len(counted['unknown'])} unknown (with what settles them: "
              f"{'; '.join(counted['unknown'])}), {len(counted['settled'])} denied by AWS's NotPrincipal reading, "
              f"{len(wrong)} wrong")
    print(figure)
    assert len(placed) >= 20, figure
    assert not wrong, (figure, json.dumps(wrong, indent=1))
