"""Each bucket-policy fix grants exactly one thing, judged by @cloud-copilot/iam-simulate, an evaluator
this project did not write: the rewritten policy allows the one access it was written for, and every request the
original refused to anyone else (another role, a request without TLS, one outside the VPC endpoint) it still
refuses."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from aws_data_mcp.explainer.model import resource_policy_fix, statements
from support.iam_judge import Request, judge, skip_without_judge

pytestmark = skip_without_judge()
ACCOUNT = "123456789012"
ALICE_ROLE, BOB_ROLE = f"arn:aws:iam::{ACCOUNT}:role/alice", f"arn:aws:iam::{ACCOUNT}:role/bob"
ALICE, BOB = f"arn:aws:sts::{ACCOUNT}:assumed-role/alice/s", f"arn:aws:sts::{ACCOUNT}:assumed-role/bob/s"
OBJECTS, OBJECT = "arn:aws:s3:::logs/*", "arn:aws:s3:::logs/tls_only_sessions/part-0.parquet"
READ_ALL = [{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}]
TLS_ONLY = {"Sid": "TlsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": OBJECTS,
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
NOT_ALICE = {"Sid": "NotAlice", "Effect": "Deny", "Principal": {"AWS": ALICE_ROLE}, "Action": "s3:GetObject",
             "Resource": OBJECTS}
ALICE_AND_BOB = {"Sid": "NeitherAliceNorBob", "Effect": "Deny", "Principal": {"AWS": [ALICE_ROLE, BOB_ROLE]},
                 "Action": "s3:GetObject", "Resource": OBJECTS}
EVERYONE = {"Sid": "NobodyReads", "Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": OBJECTS}
TLS = {"aws:SecureTransport": "true"}


def requests(context: dict[str, str], policy: dict[str, Any]) -> list[Request]:
    """Alice's and Bob's reads and writes, over TLS and not: what the fix must leave as it was, but one. AWS sets
    aws:PrincipalArn (the role, for a role session) on every request; the judge is told it."""
    return [Request(who, action, OBJECT, READ_ALL, policy, context={**ctx, "aws:PrincipalArn": role})
            for who, role in ((ALICE, ALICE_ROLE), (BOB, BOB_ROLE)) for action in ("s3:GetObject", "s3:PutObject")
            for ctx in (context, {**context, "aws:SecureTransport": "false"})]


@pytest.mark.parametrize("denying", [NOT_ALICE, ALICE_AND_BOB, EVERYONE], ids=["alice", "alice-and-bob", "everyone"])
def test_the_fix_allows_alices_read_and_changes_nothing_else(denying: dict[str, Any]) -> None:
    original = {"Version": "2012-10-17", "Statement": [TLS_ONLY, denying]}
    found = statements(original, "Deny", "s3:GetObject", OBJECTS, (ALICE_ROLE, ALICE), ACCOUNT)
    fix = resource_policy_fix("bucket_policy", "logs", original, ALICE_ROLE, ["s3:GetObject"], OBJECTS, found,
                              "aws s3api put-bucket-policy --bucket logs --policy {policy}", (ALICE,))
    assert TLS_ONLY in fix["policy"]["Statement"]  # the TLS-only statement is kept, untouched
    before = judge(requests(TLS, original))
    after = judge(requests(TLS, fix["policy"]))
    asked = requests(TLS, original)
    one = next(i for i, r in enumerate(asked) if (r.principal, r.action, r.context["aws:SecureTransport"]) == (
        ALICE, "s3:GetObject", "true"))
    assert (before[one], after[one]) == ("ExplicitlyDenied", "Allowed")
    changed = [(asked[i].principal, asked[i].action, asked[i].context) for i in range(len(asked))
               if i != one and before[i] != after[i] and before[i] != "Allowed"]
    assert changed == [], changed  # every other refusal stands: Bob's, and any request without TLS


def test_a_second_callers_fix_keeps_the_grant_the_first_ones_added() -> None:
    """Two callers each refused by a Deny naming both, their identity policies silent (the bucket policy's grant is
    all they have); alice's fix applied, then bob's printed from that policy: both read, and every other refusal
    stands (a fix never takes back the grant another fix added)."""
    original = {"Version": "2012-10-17", "Statement": [TLS_ONLY, ALICE_AND_BOB]}

    def fixed(policy: dict[str, Any], role: str, session: str) -> dict[str, Any]:
        found = statements(policy, "Deny", "s3:GetObject", OBJECTS, (role, session), ACCOUNT)
        return resource_policy_fix("bucket_policy", "logs", policy, role, ["s3:GetObject"], OBJECTS, found,
                                   "aws s3api put-bucket-policy --bucket logs --policy {policy}", (session,))["policy"]

    def silent(policy: dict[str, Any]) -> list[Request]:  # identities that allow nothing: the grants must hold
        return [replace(r, identity=()) for r in requests(TLS, policy)]

    both = fixed(fixed(original, ALICE_ROLE, ALICE), BOB_ROLE, BOB)
    asked = silent(original)
    before, after = judge(asked), judge(silent(both))
    reads = {i for i, r in enumerate(asked)
             if r.action == "s3:GetObject" and r.context["aws:SecureTransport"] == "true"}
    assert [after[i] for i in sorted(reads)] == ["Allowed", "Allowed"], after
    changed = [(asked[i].principal, asked[i].action, asked[i].context) for i in range(len(asked))
               if i not in reads and before[i] != after[i] and before[i] != "Allowed"]
    assert changed == [], changed
