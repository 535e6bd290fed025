"""The independent judge (`@cloud-copilot/iam-simulate`, through node) and the demo's own decisions, on the same
inputs: a corpus of real-world policy patterns from AWS's documentation, and every request the demo's Athena makes
for the `enterprise` cases and over the demo's bucket and key policies, as each demo caller.

Where they disagree, which one reads AWS right was settled from AWS's documentation; the settled disagreements are
listed (`SETTLED`) with the reading that holds, and any other disagreement fails the test. The closing figure
(patterns judged, requests, disagreements) is printed with `-s` and in the assertion messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto.glue.models import glue_backends
from moto.iam.access_control import create_access_key
from moto.kms.models import kms_backends
from moto.s3.models import s3_backends

from aws_data_mcp_demo.access.decisions import Caller, bucket_owner, caller_of_key, key_arn
from aws_data_mcp_demo.access.request_context import via_s3
from aws_data_mcp_demo.account import enterprise as enterprise_lake
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.engine.files import objects_under
from support.enterprise_access import EXPECTED, Refused
from support.iam_judge import Request, demo_verdict, judge, skip_without_judge
from support.policy_patterns import PATTERNS

pytestmark = skip_without_judge()

SETTLED = {
    ("NotPrincipal Deny as documented (session, role, account)", "alice"),
    ("NotPrincipal Deny as documented (session, role, account)", "dave"),
    ("NotPrincipal Deny naming the role alone", "bob"),
}
"""(pattern, caller) where iam-simulate allows and the demo denies; AWS denies. iam-simulate exempts a caller from a
Deny's NotPrincipal when any ARN listed matches any of it (the account's root exempts the whole account). AWS's
NotPrincipal page: with the session, the role and the account listed, "all principals except the assumed-role user
... are explicitly denied access"; without the role's (or the account's) ARN the Deny may apply to the role (or the
account) and so to its sessions. The demo exempts a caller only when its whole chain is listed, as AWS documents."""


def _settled(request: Request, judged: str, demo: str) -> bool:
    """A disagreement of the kind SETTLED records: the judge exempts from a Deny with NotPrincipal a caller whose
    chain the NotPrincipal names only in part (its account), where AWS denies explicitly (a caller the judge then
    finds no Allow for, it denies implicitly)."""
    statements = (request.resource_policy or {}).get("Statement", [])
    return judged != "ExplicitlyDenied" and demo == "ExplicitlyDenied" and any(
        s.get("Effect") == "Deny" and "NotPrincipal" in s for s in statements)


def _name(principal: str) -> str:
    return principal.rsplit("/", 1)[-1]


def test_the_pattern_corpus_reads_as_the_judge_reads_it() -> None:
    requests = [(pattern, request) for pattern in PATTERNS for request in pattern.requests]
    verdicts = judge(request for _, request in requests)
    disagreements = {(pattern.name, _name(request.principal)): (verdict, demo_verdict(request))
                     for (pattern, request), verdict in zip(requests, verdicts, strict=True)
                     if demo_verdict(request) != verdict}
    figure = (f"{len(PATTERNS)} patterns, {len(requests)} requests judged, {len(disagreements)} disagreements "
              f"({len(SETTLED)} settled for the demo from AWS's documentation)")
    print(figure)
    assert len(PATTERNS) >= 30, figure
    assert set(disagreements) == SETTLED, (figure, disagreements)
    assert all(judged == "Allowed" and demo == "ExplicitlyDenied" for judged, demo in disagreements.values())


# --------------------------------------------------------------------------- the demo's own requests

@pytest.fixture(scope="module")
def demo() -> Iterator[DemoAccount]:
    with DemoAccount(hosted_callers=True) as account:
        yield account


@pytest.fixture(scope="module")
def callers(demo: DemoAccount) -> dict[str, Caller]:
    """Each demo caller as the demo's Athena sees it (its role session, or the plain demo's IAM user)."""
    assert demo.function_keys is not None
    sts = boto3.client("sts", endpoint_url=demo.endpoint_url, region_name=demo.region,
                       aws_access_key_id=demo.function_keys[0], aws_secret_access_key=demo.function_keys[1])
    found = {}
    for name, role in (("alice", "demo-analyst-role"), ("bob", "demo-admin-role"), ("carol", "demo-contractor-role")):
        credentials = sts.assume_role(RoleArn=demo.caller_roles[role], RoleSessionName=name)["Credentials"]
        key = create_access_key(demo.account_id, "aws", credentials["AccessKeyId"],
                                {"X-Amz-Security-Token": credentials["SessionToken"]})
        found[name] = caller_of_key(key, "aws")
    user_key = demo.caller_environment()["AWS_ACCESS_KEY_ID"]
    found["demo-analyst"] = caller_of_key(create_access_key(demo.account_id, "aws", user_key, {}), "aws")
    return found


def _identity(caller: Caller) -> tuple[dict, ...]:
    return tuple(policy._policy_json for policy in caller.policies)


def _bucket_request(caller: Caller, action: str, bucket: str, key: str, context: dict) -> Request:
    owner = bucket_owner(bucket) or caller.account_id
    found = s3_backends[owner]["aws"].buckets[bucket]
    policy = found.policy.decode() if isinstance(found.policy, bytes) else found.policy
    return Request(caller.arn, action, f"arn:aws:s3:::{bucket}" + (f"/{key}" if key else ""), _identity(caller),
                   json.loads(policy) if policy else None, owner, context)


def _key_request(caller: Caller, action: str, arn: str, region: str) -> Request:
    key = kms_backends[caller.account_id][region].keys[arn.rsplit("/", 1)[-1]]
    context = dict(via_s3(caller.through_athena(), region))
    return Request(caller.arn, action, key.arn, _identity(caller), json.loads(key.policy), caller.account_id,
                   context, key_policy=True)


def _athena_reads(caller: Caller, database: str, table: str, region: str) -> list[Request]:
    """The requests the demo's Athena makes to read the table's files as the caller, in its order."""
    found = glue_backends[caller.account_id][region].get_table(database, table)
    definition = found.as_dict()
    locations = [p.partition_input["StorageDescriptor"]["Location"] for p in found.partitions.values()] \
        if definition.get("PartitionKeys") else [definition["StorageDescriptor"]["Location"]]
    root = definition["StorageDescriptor"]["Location"].removeprefix("s3://").partition("/")
    steps: list[Request] = []
    listed: set[str] = set()
    for location in locations:
        for path, stored in objects_under(caller.account_id, location):
            bucket, _, name = path.removeprefix("s3://").partition("/")
            if bucket not in listed:
                prefix = root[2] if bucket == root[0] else name.rpartition("/")[0] + "/"
                steps.append(_bucket_request(caller, "s3:ListBucket", bucket, "",
                                             dict(caller.through_athena(**{"s3:prefix": prefix}))))
                listed.add(bucket)
            steps.append(_bucket_request(caller, "s3:GetObject", bucket, name, dict(caller.through_athena())))
            if stored.encryption == "aws:kms" and stored.kms_key_id:
                steps.append(_key_request(caller, "kms:Decrypt", key_arn(stored.kms_key_id, region,
                                                                         caller.account_id), region))
    return steps


_S3_CASES = [name for name, (table, _) in enterprise_lake.TABLES.items() if not table.prefix.startswith(
    ("hybrid/", "governed/"))]


def test_the_enterprise_cases_read_as_the_judge_reads_them(demo: DemoAccount, callers: dict[str, Caller]) -> None:
    """Every S3 and KMS request of each enterprise table outside Lake Formation, as each caller: the judge and the
    demo agree on each, and the first the judge refuses is the action Athena names (support/enterprise_access)."""
    plan = {(who, name): _athena_reads(caller, enterprise_lake.DATABASE, name, demo.region)
            for who, caller in callers.items() for name in _S3_CASES}
    plan |= {(who, "lakeformation:GetDataAccess"): [Request(caller.arn, "lakeformation:GetDataAccess", "*",
                                                            _identity(caller), None, caller.account_id,
                                                            dict(caller.through_athena()))]
             for who, caller in callers.items()}
    flat = [(key, request) for key, requests in plan.items() for request in requests]
    verdicts = judge(request for _, request in flat)
    disagreements, settled = [], []
    refused: dict[tuple[str, str], str | None] = {key: None for key in plan}
    for ((who, name), request), verdict in zip(flat, verdicts, strict=True):
        demo_said = demo_verdict(request, callers[who])
        if demo_said != verdict:
            (settled if _settled(request, verdict, demo_said) else disagreements).append(
                (who, name, request.action, request.resource, verdict))
            verdict = demo_said  # AWS's reading, as SETTLED records it
        if verdict != "Allowed" and refused[(who, name)] is None:
            refused[(who, name)] = request.action
    print(f"enterprise: {len(flat)} requests judged, {len(disagreements) + len(settled)} disagreements, "
          f"{len(settled)} of them NotPrincipal (settled for the demo)")
    assert not disagreements, disagreements
    assert {(who, name) for who, name, *_ in settled} == {(who, "notprincipal_audit")
                                                          for who in ("alice", "demo-analyst", "carol")}, settled
    for (who, name), action in refused.items():
        if name == "lakeformation:GetDataAccess":
            assert (action is None) == (who != "carol"), (who, action)  # carol's IAM lacks it
            continue
        expected = EXPECTED[who][name]
        assert action == (expected.action if isinstance(expected, Refused) else None), (who, name, action)


def test_the_demo_bucket_and_key_policies_read_as_the_judge_reads_them(
        demo: DemoAccount, callers: dict[str, Caller]) -> None:
    """Every bucket policy and key policy of the demo's home account (the ones the explainers read), as each caller,
    directly and through Athena: GetObject and ListBucket on each bucket, Decrypt and GenerateDataKey on each key."""
    home = demo.account_id
    buckets = [b for b in s3_backends[home]["aws"].buckets.values() if b.policy]
    keys = list(kms_backends[home][demo.region].keys.values())
    requests = []
    for caller in callers.values():
        for found in buckets:
            for context in (dict(caller.context()), dict(caller.through_athena())):
                requests.append(_bucket_request(caller, "s3:GetObject", found.name, "any/object.csv", context))
                requests.append(_bucket_request(caller, "s3:ListBucket", found.name, "",
                                                {**context, "s3:prefix": "any/"}))
        for key in keys:
            for action in ("kms:Decrypt", "kms:GenerateDataKey"):
                requests.append(_key_request(caller, action, key.arn, demo.region))
    verdicts = judge(requests)
    said = [demo_verdict(r, _caller_of(callers, r.principal)) for r in requests]
    disagreements = [(r.principal, r.action, r.resource, v, d) for r, v, d in zip(requests, verdicts, said, strict=True)
                     if d != v]
    settled = [entry for entry, r in zip(disagreements, (r for r, v, d in zip(requests, verdicts, said, strict=True)
                                                          if d != v), strict=True) if _settled(r, entry[3], entry[4])]
    print(f"demo policies: {len(buckets)} bucket and {len(keys)} key policies, {len(requests)} requests judged, "
          f"{len(disagreements)} disagreements, {len(settled)} of them NotPrincipal (settled for the demo)")
    assert len(buckets) >= 7 and len(keys) >= 5
    assert disagreements == settled, disagreements
    assert {entry[2] for entry in settled} <= {f"arn:aws:s3:::{enterprise_lake.AUDIT_BUCKET}/any/object.csv"}


def _caller_of(callers: dict[str, Caller], principal: str) -> Caller:
    return next(caller for caller in callers.values() if caller.arn == principal)


_DECISIONS = {"allowed": "Allowed", "explicitDeny": "ExplicitlyDenied", "implicitDeny": "ImplicitlyDenied"}


def test_the_demo_simulator_reads_as_the_judge_reads_it(demo: DemoAccount, callers: dict[str, Caller]) -> None:
    """The emulated account's SimulatePrincipalPolicy (a moto extension), asked as the explainers ask it: each
    enterprise bucket policy as the resource policy, Athena's context entries, the bucket's owner; for each caller's
    role, GetObject and ListBucket. The judge answers the same requests."""
    iam = demo.caller_client("iam")
    asked, requests = [], []
    for who in ("alice", "bob", "carol"):
        role = next(name for name in callers[who].names if ":role/" in name)
        identity = _identity(callers[who])
        context = {k: v for k, v in callers[who].through_athena().items() if not k.startswith("aws:Principal")}
        entries = [{"ContextKeyName": k, "ContextKeyValues": v if isinstance(v, list) else [v],
                    "ContextKeyType": "stringList" if isinstance(v, list) else "string"} for k, v in context.items()]
        for bucket in (*enterprise_lake.bucket_policies(demo.account_id), enterprise_lake.LAKE_BUCKET):
            owner = bucket_owner(bucket)
            found = s3_backends[owner]["aws"].buckets[bucket]
            policy = found.policy.decode() if isinstance(found.policy, bytes) else found.policy
            for action, resource in (("s3:GetObject", f"arn:aws:s3:::{bucket}/data/part-00000.csv"),
                                     ("s3:ListBucket", f"arn:aws:s3:::{bucket}")):
                answer = iam.simulate_principal_policy(
                    PolicySourceArn=role, CallerArn=role, ActionNames=[action], ResourceArns=[resource],
                    ContextEntries=entries, ResourceOwner=f"arn:aws:iam::{owner}:root",
                    **({"ResourcePolicy": policy} if policy else {}))["EvaluationResults"][0]
                asked.append((who, bucket, action, _DECISIONS[answer["EvalDecision"]]))
                requests.append(Request(role, action, resource, identity, json.loads(policy) if policy else None,
                                        owner, {"aws:PrincipalArn": role, "aws:PrincipalAccount": demo.account_id,
                                                **context}))
    verdicts = judge(requests)
    disagreements = [(entry, verdict, request)
                     for entry, verdict, request in zip(asked, verdicts, requests, strict=True) if entry[3] != verdict]
    unsettled = [(entry, verdict) for entry, verdict, request in disagreements
                 if not _settled(request, verdict, entry[3])]
    print(f"simulator: {len(asked)} simulations judged, {len(disagreements)} disagreements, "
          f"{len(disagreements) - len(unsettled)} of them NotPrincipal (settled for the demo)")
    assert not unsettled, unsettled
    assert ("alice", enterprise_lake.VPCE_ONLY_BUCKET, "s3:GetObject", "ExplicitlyDenied") in asked
    assert ("bob", enterprise_lake.AUDIT_BUCKET, "s3:GetObject", "Allowed") in asked
