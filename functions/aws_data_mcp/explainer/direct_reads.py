"""Direct S3 reads past Lake Formation: a finding for the data owner, not a link of the caller's query.

Lake Formation's column and row grants govern what Athena returns; they do not govern S3. A caller whose IAM and
the bucket policy allow `s3:GetObject` on a table's files downloads them whole, the hidden columns and filtered
rows included, on AWS as in the demo. Where the table explainer's own checks show both (Lake Formation restricts
the caller's columns or rows, and the caller's one-byte read of the table's files, decrypted, succeeded), this
says so, with the fixes that close it: a bucket-policy Deny of that one read for that one principal (Athena under
Lake Formation reads with the registration's role, not the caller's), and the location registered in Lake
Formation mode where it is in hybrid access mode.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.explainer.lake_formation import REGISTRATION
from aws_data_mcp.explainer.model import Fix, Link, grant_sid, principal_kind
from aws_data_mcp.explainer.policy_grammar import listed
from aws_data_mcp.explainer.storage_links import bucket_policy, put_bucket_policy, s3_location


class OwnerFinding(TypedDict):
    """What the data owner should know of a table, beyond whether the caller's query runs."""

    finding: str
    """One line: what is open, to whom, and why Lake Formation does not close it."""
    check: str
    resource: str
    principal: str
    fix: list[Fix]


def _registration(links: Sequence[Link]) -> Mapping[str, Any]:
    return next((entry["evidence"] for entry in links if entry["check"] == REGISTRATION
                 and entry["evidence"].get("registered_location")), {})


def _at_root(links: Sequence[Link], check: str, location: str) -> Link | None:
    """The table root's link for `check` (partition locations elsewhere have links of their own)."""
    return next((entry for entry in links if entry["check"] == check
                 and entry["evidence"].get("location") == location), None)


def _deny_fix(principal: str, bucket: str, objects: str, policy: Mapping[str, Any] | None) -> Fix:
    """The bucket policy with a Deny of `s3:GetObject` on the table's objects for the one principal added: every
    other statement kept as it is, everyone else's access unchanged."""
    sid = "AwsDataMcpNoDirectRead" + grant_sid(principal, ["s3:GetObject"], objects).removeprefix("AwsDataMcpAccess")
    statement = {"Sid": sid, "Effect": "Deny",
                 "Principal": {"AWS": principal}, "Action": "s3:GetObject", "Resource": objects}
    kept = [entry for entry in listed((policy or {}).get("Statement")) if entry.get("Sid") != statement["Sid"]]
    fixed = {"Version": (policy or {}).get("Version", "2012-10-17"), "Statement": [*kept, statement]}
    kind, name = principal_kind(principal)
    sessions = " (every session of it)" if kind == "role" else ""
    return Fix(kind="bucket_policy", apply_by="administrator", target=bucket, statement=statement, policy=fixed,
               command=put_bucket_policy(bucket).format(policy=shlex.quote(json.dumps(fixed, separators=(",", ":")))),
               note=f"denies the {kind} {name}{sessions} s3:GetObject on the table's files only; Athena "
                    "under Lake Formation reads them with the registration's role, so the caller's queries keep "
                    "working (in hybrid access mode, register the location in Lake Formation mode first, or the "
                    "caller's own Athena reads are refused too); narrowing the caller's identity policy's "
                    "s3:GetObject instead works as well where no other statement allows it")


def _registration_fix(registered: str) -> Fix:
    arn = f"arn:aws:s3:::{registered.removeprefix('s3://')}" if registered.startswith("s3://") else registered
    role = (f"\"$(aws lakeformation describe-resource --resource-arn {shlex.quote(arn)} "
            "--query ResourceInfo.RoleArn --output text)\"")
    return Fix(kind="lake_formation_registration", apply_by="administrator", target=arn,
               command=f"aws lakeformation update-resource --resource-arn {shlex.quote(arn)} --role-arn {role} "
                       "--no-hybrid-access-enabled",
               request={"ResourceArn": arn, "HybridAccessEnabled": False},
               note="the location leaves hybrid access mode: Athena then reads it only through Lake Formation's "
                    "grants, for every principal")


def direct_read_findings(s3: Any, principal: str | None, answer: Mapping[str, Any]) -> list[OwnerFinding]:
    """The finding of a table explainer's `answer` (a `TableAccess`) where its caller reads the table's files
    past Lake Formation's restriction; `s3` reads the bucket's policy (the explainer read it in the same read:
    answered from the read's memo)."""
    hidden, rows = answer.get("hidden_columns") or [], answer.get("row_filter")
    where = s3_location(answer.get("location"))
    if answer.get("decided_by") != "lake_formation" or not (hidden or rows) or where is None or not principal:
        return []
    location = f"s3://{where[0]}/{where[1]}"
    read, decrypt = (_at_root(answer["links"], check, location) for check in ("s3:GetObject", "kms:Decrypt"))
    if read is None or read["verdict"] != "allowed" or decrypt is None or decrypt["verdict"] != "allowed":
        return []
    objects = read["resource"]
    try:
        policy, unread = bucket_policy(s3, where[0]), ""
    except (ClientError, BotoCoreError):
        policy, unread = None, "; the bucket policy could not be read: add the statement to it rather than put this"
    restricted = ", ".join([*([f"{len(hidden)} hidden columns ({', '.join(hidden)})"] if hidden else []),
                            *([f"rows outside {rows}"] if rows else [])])
    name = f"{answer['database']}.{answer['table']}"
    fixes = [_deny_fix(principal, where[0], objects, policy)]
    fixes[0]["note"] += unread
    registration = _registration(answer["links"])
    if registration.get("hybrid_access"):
        fixes.append(_registration_fix(str(registration["registered_location"])))
    return [OwnerFinding(
        finding=f"For the data owner: {principal} reads {name}'s files directly from {location} (s3:GetObject "
                f"allowed by its IAM and the bucket policy, the one-byte read decrypted), {restricted} included: "
                "Lake Formation's grants govern Athena, not a direct S3 read",
        check="s3:GetObject", resource=objects, principal=principal, fix=fixes)]
