"""Each identity-side fix grants exactly one thing, judged by @cloud-copilot/iam-simulate, an evaluator
this project did not write: a Deny in a group's policy or a permissions boundary narrowed for the caller, a boundary
that does not allow the read given exactly that Allow, a Deny in the caller's own policy taken out. The rewritten
policy allows the one access it was written for; every request the original refused to anyone else (another member
of the group, another role under the same boundary, another action or object) it still refuses."""

from __future__ import annotations

from typing import Any

import pytest

from aws_data_mcp.explainer.identity_policies import IdentityPolicy, denial_fixes
from support.iam_judge import Request, demo_verdict, judge, skip_without_judge

pytestmark = skip_without_judge()
ACCOUNT = "123456789012"
ALICE, BOB, CAROL = (f"arn:aws:iam::{ACCOUNT}:user/{name}" for name in ("alice", "bob", "carol"))
ALICE_ROLE, BOB_ROLE = f"arn:aws:iam::{ACCOUNT}:role/alice", f"arn:aws:iam::{ACCOUNT}:role/bob"
SESSIONS = {ALICE_ROLE: f"arn:aws:sts::{ACCOUNT}:assumed-role/alice/s",
            BOB_ROLE: f"arn:aws:sts::{ACCOUNT}:assumed-role/bob/s"}
OBJECTS, OBJECT = "arn:aws:s3:::lake/orders/*", "arn:aws:s3:::lake/orders/part-0.csv"
ELSEWHERE = "arn:aws:s3:::lake/payments/part-0.csv"
ALL_S3 = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
NO_ORDERS = {"Sid": "NoOrders", "Effect": "Deny", "Action": "s3:GetObject", "Resource": OBJECTS}
ONLY_CAROL = NO_ORDERS | {"Sid": "OnlyCarol", "Condition": {"ArnNotEquals": {"aws:PrincipalArn": [CAROL]}}}
NO_S3 = {"Sid": "NoS3", "Effect": "Deny", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "*"}


def _document(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def _asked(principals: list[str], identity: list[dict[str, Any]], boundary: dict[str, Any] | None
           ) -> list[Request]:
    """Each principal's read and write of the object, and read of another: what the fix must leave as it was,
    but one. AWS sets aws:PrincipalArn (the role, for a role session) on every request; the judge is told it."""
    return [Request(SESSIONS.get(who, who), action, resource, identity, context={"aws:PrincipalArn": who},
                    boundary=boundary)
            for who in principals for action, resource in (("s3:GetObject", OBJECT), ("s3:PutObject", OBJECT),
                                                            ("s3:GetObject", ELSEWHERE))]


def _judged(principals: list[str], before: tuple[list[dict[str, Any]], dict[str, Any] | None],
            after: tuple[list[dict[str, Any]], dict[str, Any] | None]) -> None:
    """The first principal's read goes from refused to Allowed; nothing else anyone was refused changes."""
    asked = _asked(principals, *before)
    was, now = judge(asked), judge(_asked(principals, *after))
    assert was[0] != "Allowed" and now[0] == "Allowed", (was[0], now[0])
    changed = [(asked[i].principal, asked[i].action, asked[i].resource) for i in range(1, len(asked))
               if was[i] != now[i] and was[i] != "Allowed"]
    assert changed == [], changed


@pytest.mark.parametrize("denying", [NO_ORDERS, ONLY_CAROL, NO_S3], ids=["plain", "all-but-carol", "broad"])
@pytest.mark.parametrize("managed", [False, True], ids=["inline", "managed"])
def test_a_group_deny_is_narrowed_for_the_caller_only(denying: dict[str, Any], managed: bool) -> None:
    name = f"arn:aws:iam::{ACCOUNT}:policy/no-orders" if managed else "no-orders"
    group = _document(denying)
    held = IdentityPolicy(ALICE, name, managed, group, "group", "analysts", f"arn:aws:iam::{ACCOUNT}:group/analysts")
    [fix] = denial_fixes([held], "s3:GetObject", OBJECTS)
    assert (fix["kind"], fix["holder"], fix["target"]) == ("group_policy", "group analysts", held.group_arn)
    assert "removes" not in fix and fix["narrows"] and f"the policy {name} of group analysts denies" in fix["note"]
    assert ("create-policy-version" if managed else "put-group-policy --group-name analysts") in fix["command"]
    _judged([ALICE, BOB, CAROL], ([ALL_S3, group], None), ([ALL_S3, fix["policy"]], None))


def test_a_narrowed_deny_keeps_the_ones_it_already_exempted() -> None:
    """ArnNotEquals with several values means "none of them": the caller joins the exempted, who stay exempted."""
    held = IdentityPolicy(ALICE, "no-orders", False, _document(ONLY_CAROL), "group", "analysts")
    [fix] = denial_fixes([held], "s3:GetObject", OBJECTS)
    assert fix["narrows"][0]["Condition"] == {"ArnNotEquals": {"aws:PrincipalArn": [CAROL, ALICE]}}


def test_a_boundary_that_does_not_allow_the_read_gets_that_allow_for_the_caller_only() -> None:
    boundary = _document({"Effect": "Allow", "Action": ["s3:ListBucket", "s3:PutObject"], "Resource": "*"})
    held = IdentityPolicy(ALICE_ROLE, f"arn:aws:iam::{ACCOUNT}:policy/cap", True, boundary, "permissions_boundary")
    [fix] = denial_fixes([held], "s3:GetObject", OBJECTS)
    assert (fix["kind"], fix["target"]) == ("permissions_boundary", held.name)
    assert fix["note"].startswith(f"the permissions boundary {held.name} does not allow s3:GetObject")
    assert "grants nothing alone" in fix["note"] and fix["statement"]["Action"] == "s3:GetObject"
    _judged([ALICE_ROLE, BOB_ROLE], ([ALL_S3], boundary), ([ALL_S3], fix["policy"]))
    # it grants nothing by itself: without the identity policy's Allow, the read is still refused
    assert judge([Request(SESSIONS[ALICE_ROLE], "s3:GetObject", OBJECT, [], context={
        "aws:PrincipalArn": ALICE_ROLE}, boundary=fix["policy"])]) == ["ImplicitlyDenied"]


@pytest.mark.parametrize("allows", [True, False], ids=["deny-and-allow", "deny-only"])
def test_a_boundary_deny_is_narrowed_for_the_caller_only(allows: bool) -> None:
    everything = {"Effect": "Allow", "Action": "*", "Resource": "*"}
    boundary = _document(*([everything] if allows else []), NO_ORDERS)
    held = IdentityPolicy(ALICE_ROLE, f"arn:aws:iam::{ACCOUNT}:policy/wall", True, boundary, "permissions_boundary")
    [fix] = denial_fixes([held], "s3:GetObject", OBJECTS)
    assert fix["kind"] == "permissions_boundary" and fix["narrows"] and ("statement" in fix) is not allows
    _judged([ALICE_ROLE, BOB_ROLE], ([ALL_S3], boundary), ([ALL_S3], fix["policy"]))


def test_a_deny_in_the_callers_own_inline_policy_is_taken_out_a_managed_one_narrowed() -> None:
    own = _document(NO_ORDERS, {"Effect": "Allow", "Action": "s3:*", "Resource": "*"})
    [inline] = denial_fixes([IdentityPolicy(ALICE, "access", False, own)], "s3:GetObject", OBJECTS)
    assert inline["kind"] == "identity_policy" and inline["removes"] == [NO_ORDERS] and "narrows" not in inline
    _judged([ALICE], ([own], None), ([inline["policy"]], None))
    arn = f"arn:aws:iam::{ACCOUNT}:policy/access"  # may be attached to others: narrowed, never taken out
    [managed] = denial_fixes([IdentityPolicy(ALICE, arn, True, own)], "s3:GetObject", OBJECTS)
    assert "removes" not in managed and managed["narrows"]
    _judged([ALICE, BOB], ([own], None), ([managed["policy"]], None))


def test_the_simulators_word_names_the_source() -> None:
    """Where IAM's simulator named the policy its matching Deny came from, only that policy is fixed; where it said
    the boundary allowed, the boundary is left as it is."""
    group = IdentityPolicy(ALICE, "no-orders", False, _document(NO_ORDERS), "group", "analysts")
    own = IdentityPolicy(ALICE, "access", False, _document(NO_ORDERS))
    boundary = IdentityPolicy(ALICE, f"arn:aws:iam::{ACCOUNT}:policy/cap", True, _document(), "permissions_boundary")
    simulated = {"EvalDecision": "explicitDeny", "MatchedStatements": [
        {"SourcePolicyId": "no-orders", "SourcePolicyType": "group"}],
        "PermissionsBoundaryDecisionDetail": {"AllowedByPermissionsBoundary": True}}
    fixes = denial_fixes([group, own, boundary], "s3:GetObject", OBJECTS, simulated)
    assert [fix["kind"] for fix in fixes] == ["group_policy"]
    read = denial_fixes([group, own, boundary], "s3:GetObject", OBJECTS)
    assert [fix["kind"] for fix in read] == ["group_policy", "identity_policy", "permissions_boundary"]


def test_a_wildcard_the_grammar_cannot_split_is_said_and_binds_everyone_else_still() -> None:
    everything = {"Sid": "NoS3Here", "Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::lake/*"}
    group = _document(everything)
    held = IdentityPolicy(ALICE, "no-lake", False, group, "group", "analysts")
    [fix] = denial_fixes([held], "s3:GetObject", OBJECTS)
    assert fix["widens"] == ["s3:* beyond s3:GetObject", f"s3:GetObject on arn:aws:s3:::lake/* beyond {OBJECTS}"]
    assert "narrow it by hand" in fix["note"]
    asked = _asked([BOB, CAROL], [ALL_S3, group], None)
    assert judge(asked) == judge(_asked([BOB, CAROL], [ALL_S3, fix["policy"]], None))  # the others: unchanged


def test_the_demos_boundary_reads_as_the_judge_reads_it() -> None:
    """The demo's S3 and simulator decisions weigh a permissions boundary (``athena_access.decide``) as iam-simulate
    does: a boundary caps identity grants, its Deny wins, and a bucket policy naming the user or the role session
    itself is not capped (naming the role is)."""
    cap = _document({"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"})
    wall = _document({"Effect": "Allow", "Action": "*", "Resource": "*"}, NO_ORDERS)

    def naming(principal: str) -> dict[str, Any]:
        return _document({"Effect": "Allow", "Principal": {"AWS": principal}, "Action": "s3:GetObject",
                          "Resource": OBJECTS})

    asked = [Request(SESSIONS.get(who, who), "s3:GetObject", OBJECT, identity, policy,
                     context={"aws:PrincipalArn": who}, boundary=boundary)
             for who in (ALICE, ALICE_ROLE) for identity in ([ALL_S3], []) for boundary in (None, cap, wall)
             for policy in (None, naming(who), naming(SESSIONS.get(who, who)))]
    judged = judge(asked)
    demo = [demo_verdict(request) for request in asked]
    disagree = [(r.principal, bool(r.identity), r.boundary, r.resource_policy, j, d)
                for r, j, d in zip(asked, judged, demo, strict=True) if j != d]
    assert disagree == [], disagree
