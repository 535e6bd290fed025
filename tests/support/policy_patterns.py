"""Real-world policy patterns, as AWS's documentation writes them, each with the requests that tell its readings
apart (Athena's forward access session, a direct request from a VPC endpoint, another account, TLS or not...): the
corpus the independent judge and the demo's decisions are compared on (tests/judge/test_iam_judge.py).

Each `Pattern` names the page it comes from. Principals: alice and bob are role sessions in the home account
(123456789012), eve a role session in another account (444455556666), dave an IAM user at home.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from support.iam_judge import Request

HOME, OTHER = "123456789012", "444455556666"
ALICE = f"arn:aws:sts::{HOME}:assumed-role/analyst/alice"
BOB = f"arn:aws:sts::{HOME}:assumed-role/admin/bob"
EVE = f"arn:aws:sts::{OTHER}:assumed-role/partner/eve"
DAVE = f"arn:aws:iam::{HOME}:user/dave"
BUCKET = "arn:aws:s3:::docs-bucket"
OBJECT = f"{BUCKET}/reports/2026/q1.csv"
KEY = f"arn:aws:kms:us-east-1:{HOME}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
VPCE = "vpce-1a2b3c4d"
ORG = "o-acme123456"

ATHENA = {"aws:SecureTransport": "true", "aws:ViaAWSService": "true", "aws:CalledVia": ["athena.amazonaws.com"],
          "aws:CalledViaFirst": "athena.amazonaws.com", "aws:CalledViaLast": "athena.amazonaws.com"}
"""A request Athena makes with the caller's forward access session: no network keys."""
DIRECT = {"aws:SecureTransport": "true", "aws:SourceVpce": VPCE, "aws:ViaAWSService": "false",
          "aws:SourceIp": "10.0.1.20"}
"""A request the caller sends through the VPC endpoint."""
S3_ALL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
KMS_ALL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "kms:*", "Resource": "*"}]}


def doc(*statements: Mapping[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


@dataclass(frozen=True)
class Pattern:
    name: str
    source: str
    """The AWS documentation page the pattern is written from."""
    requests: tuple[Request, ...]


def _with_principal(context: Mapping[str, Any], principal: str) -> dict[str, Any]:
    account = principal.split(":")[4]
    arn = principal
    if ":assumed-role/" in principal:
        arn = f"arn:aws:iam::{account}:role/{principal.split(':assumed-role/')[1].split('/')[0]}"
    return {"aws:PrincipalArn": arn, "aws:PrincipalAccount": account, **context}


def bucket(policy: dict[str, Any], *cases: tuple[str, str, str, Mapping[str, Any]], identity: Any = S3_ALL,
           owner: str = HOME) -> tuple[Request, ...]:
    """Requests (principal, action, resource, context) on a bucket with `policy`."""
    return tuple(Request(principal, action, resource, (identity,) if identity else (), policy, owner,
                         _with_principal(context, principal)) for principal, action, resource, context in cases)


def key(policy: dict[str, Any], *cases: tuple[str, str, Mapping[str, Any]],
        identity: Any = None) -> tuple[Request, ...]:
    return tuple(Request(principal, action, KEY, (identity,) if identity else (), policy, HOME,
                         _with_principal(context, principal), key_policy=True) for principal, action, context in cases)


def _b(name: str) -> list[str]:
    return [BUCKET, f"{BUCKET}/*"] if name == "both" else [f"{BUCKET}/*"]


_TLS = {"Sid": "AllowSSLRequestsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": _b("both"),
        "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
_VPCE = {"Sid": "AccessToSpecificVPCEOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
         "Resource": _b("both"), "Condition": {"StringNotEquals": {"aws:SourceVpce": VPCE}}}
_GET, _LIST, _PUT = "s3:GetObject", "s3:ListBucket", "s3:PutObject"
_NO_TLS = {**DIRECT, "aws:SecureTransport": "false"}
_OTHER_VPCE = {**DIRECT, "aws:SourceVpce": "vpce-9z9z9z9z"}
_S3 = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/example-bucket-policies.html"
_VPCE_DOC = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/example-bucket-policies-vpc-endpoint.html"
_KEYS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html"
_KMS = "https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html"
_NOTPRINCIPAL = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html"
_CROSS = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/example-walkthroughs-managing-access-example2.html"
_FAS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/access_forward_access_sessions.html"
_EXAMPLES = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_examples.html"


def _patterns() -> list[Pattern]:
    bob_names = [BOB, f"arn:aws:iam::{HOME}:role/admin", f"arn:aws:iam::{HOME}:root"]
    return [
        Pattern("TLS-only (aws:SecureTransport)", _S3, bucket(
            doc(_TLS), (ALICE, _GET, OBJECT, DIRECT), (ALICE, _GET, OBJECT, _NO_TLS), (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("TLS-only plus a Deny naming one role", _S3, bucket(
            doc(_TLS, {"Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{HOME}:role/analyst"}, "Action": _GET,
                       "Resource": _b("objects")}),
            (ALICE, _GET, OBJECT, ATHENA), (BOB, _GET, OBJECT, ATHENA), (BOB, _GET, OBJECT, _NO_TLS))),
        Pattern("VPC-endpoint-only", _VPCE_DOC, bucket(
            doc(_VPCE), (ALICE, _GET, OBJECT, DIRECT), (ALICE, _GET, OBJECT, ATHENA),
            (ALICE, _LIST, BUCKET, {**ATHENA, "s3:prefix": "reports/"}), (ALICE, _GET, OBJECT, _OTHER_VPCE))),
        Pattern("VPC-endpoint-only, CalledVia exemption", _FAS, bucket(
            doc({**_VPCE, "Condition": {"StringNotEquals": {"aws:SourceVpce": VPCE},
                                        "ForAllValues:StringNotEquals": {"aws:CalledVia": ["athena.amazonaws.com"]}}}),
            (ALICE, _GET, OBJECT, DIRECT), (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, _OTHER_VPCE),
            (ALICE, _GET, OBJECT, {**ATHENA, "aws:CalledVia": ["glue.amazonaws.com"],
                                   "aws:CalledViaFirst": "glue.amazonaws.com"}))),
        Pattern("VPC-endpoint-only, ViaAWSService exemption (IfExists)", _KEYS, bucket(
            doc({**_VPCE, "Condition": {"StringNotEqualsIfExists": {"aws:SourceVpce": VPCE},
                                        "BoolIfExists": {"aws:ViaAWSService": "false"}}}),
            (ALICE, _GET, OBJECT, DIRECT), (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, _OTHER_VPCE))),
        Pattern("VPC-only (aws:SourceVpc)", _VPCE_DOC, bucket(
            doc({**_VPCE, "Condition": {"StringNotEquals": {"aws:SourceVpc": "vpc-111bbb22"}}}),
            (ALICE, _GET, OBJECT, {**DIRECT, "aws:SourceVpc": "vpc-111bbb22"}), (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("organization-only Deny (aws:PrincipalOrgID)", _KEYS, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": _b("both"),
                 "Condition": {"StringNotEquals": {"aws:PrincipalOrgID": ORG}}}),
            (ALICE, _GET, OBJECT, {**ATHENA, "aws:PrincipalOrgID": ORG}),
            (ALICE, _GET, OBJECT, {**ATHENA, "aws:PrincipalOrgID": "o-other00000"}), (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("organization-wide Allow to another account", _KEYS, bucket(
            doc({"Effect": "Allow", "Principal": "*", "Action": _GET, "Resource": _b("objects"),
                 "Condition": {"StringEquals": {"aws:PrincipalOrgID": ORG}}}),
            (EVE, _GET, OBJECT, {**DIRECT, "aws:PrincipalOrgID": ORG}),
            (EVE, _GET, OBJECT, {**DIRECT, "aws:PrincipalOrgID": "o-other00000"}), owner=HOME)),
        Pattern("NotPrincipal Deny as documented (session, role, account)", _NOTPRINCIPAL, bucket(
            doc({"Effect": "Deny", "NotPrincipal": {"AWS": bob_names}, "Action": _GET, "Resource": _b("objects")}),
            (BOB, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, ATHENA), (DAVE, _GET, OBJECT, DIRECT))),
        Pattern("NotPrincipal Deny naming the role alone", _NOTPRINCIPAL, bucket(
            doc({"Effect": "Deny", "NotPrincipal": {"AWS": f"arn:aws:iam::{HOME}:role/admin"}, "Action": _GET,
                 "Resource": _b("objects")}),
            (BOB, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("NotAction Deny", "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notaction.html",
                bucket(doc({"Effect": "Deny", "Principal": "*", "NotAction": _GET, "Resource": _b("both")}),
                       (ALICE, _GET, OBJECT, ATHENA), (ALICE, _LIST, BUCKET, ATHENA))),
        Pattern("NotResource Allow in an identity policy",
                "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html",
                bucket(None, (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, "arn:aws:s3:::payroll/x.csv", ATHENA),
                       identity=doc({"Effect": "Allow", "Action": "s3:*",
                                     "NotResource": ["arn:aws:s3:::payroll", "arn:aws:s3:::payroll/*"]}))),
        Pattern("kms:ViaService Allow in a key policy", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:role/analyst"}, "Action": "kms:Decrypt",
                 "Resource": "*", "Condition": {"StringEquals": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}}),
            (ALICE, "kms:Decrypt", {**ATHENA, "kms:ViaService": "s3.us-east-1.amazonaws.com"}),
            (ALICE, "kms:Decrypt", DIRECT))),
        Pattern("kms:ViaService Deny outside S3", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:root"}, "Action": "kms:*",
                 "Resource": "*"},
                {"Effect": "Deny", "Principal": "*", "Action": "kms:Decrypt", "Resource": "*",
                 "Condition": {"StringNotEquals": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}}),
            (ALICE, "kms:Decrypt", {**ATHENA, "kms:ViaService": "s3.us-east-1.amazonaws.com"}),
            (ALICE, "kms:Decrypt", DIRECT), identity=KMS_ALL)),
        Pattern("AWS managed key style (kms:CallerAccount + kms:ViaService)", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": ["kms:Decrypt", "kms:GenerateDataKey*"],
                 "Resource": "*", "Condition": {"StringEquals": {"kms:CallerAccount": HOME,
                                                                 "kms:ViaService": "s3.us-east-1.amazonaws.com"}}}),
            (ALICE, "kms:Decrypt", {**ATHENA, "kms:ViaService": "s3.us-east-1.amazonaws.com",
                                    "kms:CallerAccount": HOME}),
            (ALICE, "kms:Decrypt", {**DIRECT, "kms:CallerAccount": HOME}))),
        Pattern("key policy delegating to IAM (root)", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:root"}, "Action": "kms:*",
                 "Resource": "*"}),
            (ALICE, "kms:Decrypt", ATHENA), identity=KMS_ALL)),
        Pattern("key policy delegating to IAM, IAM silent", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:root"}, "Action": "kms:*",
                 "Resource": "*"}), (ALICE, "kms:Decrypt", ATHENA),
            identity=doc({"Effect": "Allow", "Action": "s3:*", "Resource": "*"}))),
        Pattern("key policy naming the role, GenerateDataKey only", _KMS, key(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:role/analyst"},
                 "Action": ["kms:GenerateDataKey*", "kms:Encrypt"], "Resource": "*"}),
            (ALICE, "kms:GenerateDataKey", ATHENA), (ALICE, "kms:Decrypt", ATHENA))),
        Pattern("s3:prefix scoped listing", _S3, bucket(
            None, (ALICE, _LIST, BUCKET, {**ATHENA, "s3:prefix": "home/alice/notes"}),
            (ALICE, _LIST, BUCKET, {**ATHENA, "s3:prefix": "home/bob/"}), (ALICE, _LIST, BUCKET, ATHENA),
            identity=doc({"Effect": "Allow", "Action": _LIST, "Resource": BUCKET,
                          "Condition": {"StringLike": {"s3:prefix": ["home/alice/*"]}}}))),
        Pattern("s3:prefix console listing (StringEquals with the empty prefix)", _S3, bucket(
            None, (ALICE, _LIST, BUCKET, {**DIRECT, "s3:prefix": ""}),
            (ALICE, _LIST, BUCKET, {**DIRECT, "s3:prefix": "home/"}),
            (ALICE, _LIST, BUCKET, {**DIRECT, "s3:prefix": "finance/"}),
            identity=doc({"Effect": "Allow", "Action": _LIST, "Resource": BUCKET,
                          "Condition": {"StringEquals": {"s3:prefix": ["", "home/"], "s3:delimiter": ["/"]}}}))),
        Pattern("encryption-required writes (StringNotEquals)", _S3, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": _PUT, "Resource": _b("objects"),
                 "Condition": {"StringNotEquals": {"s3:x-amz-server-side-encryption": "aws:kms"}}}),
            (ALICE, _PUT, OBJECT, {**ATHENA, "s3:x-amz-server-side-encryption": "aws:kms"}),
            (ALICE, _PUT, OBJECT, {**ATHENA, "s3:x-amz-server-side-encryption": "AES256"}),
            (ALICE, _PUT, OBJECT, ATHENA))),
        Pattern("encryption-required writes (Null)", _S3, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": _PUT, "Resource": _b("objects"),
                 "Condition": {"Null": {"s3:x-amz-server-side-encryption": "true"}}}),
            (ALICE, _PUT, OBJECT, {**ATHENA, "s3:x-amz-server-side-encryption": "AES256"}),
            (ALICE, _PUT, OBJECT, ATHENA))),
        Pattern("writes under one KMS key only", _S3, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": _PUT, "Resource": _b("objects"),
                 "Condition": {"StringNotEquals": {"s3:x-amz-server-side-encryption-aws-kms-key-id": KEY}}}),
            (ALICE, _PUT, OBJECT, {**ATHENA, "s3:x-amz-server-side-encryption-aws-kms-key-id": KEY}),
            (ALICE, _PUT, OBJECT, {**ATHENA, "s3:x-amz-server-side-encryption-aws-kms-key-id": KEY[:-2] + "ff"}))),
        Pattern("source IP range only", _S3, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": _b("both"),
                 "Condition": {"NotIpAddress": {"aws:SourceIp": "10.0.0.0/16"}}}),
            (ALICE, _GET, OBJECT, DIRECT), (ALICE, _GET, OBJECT, {**DIRECT, "aws:SourceIp": "203.0.113.7"}),
            (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("another account's bucket, no policy", _CROSS, bucket(
            None, (ALICE, _GET, OBJECT, ATHENA), (ALICE, _LIST, BUCKET, ATHENA), owner=OTHER)),
        Pattern("another account's bucket granting the home account", _CROSS, bucket(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:root"}, "Action": [_GET, _LIST],
                 "Resource": _b("both")}),
            (ALICE, _GET, OBJECT, ATHENA), (DAVE, _LIST, BUCKET, DIRECT), owner=OTHER)),
        Pattern("another account's bucket granting the home account, IAM silent", _CROSS, bucket(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{HOME}:root"}, "Action": _GET,
                 "Resource": _b("objects")}),
            (ALICE, _GET, OBJECT, ATHENA), owner=OTHER, identity=doc({"Effect": "Allow", "Action": "glue:*",
                                                                        "Resource": "*"}))),
        Pattern("a bucket granting one role of another account", _CROSS, bucket(
            doc({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{OTHER}:role/partner"}, "Action": _GET,
                 "Resource": _b("objects")}),
            (EVE, _GET, OBJECT, DIRECT), (EVE, _LIST, BUCKET, DIRECT))),
        Pattern("a conditional Allow * the caller fails", _S3, bucket(
            doc({"Effect": "Allow", "Principal": "*", "Action": _GET, "Resource": _b("objects"),
                 "Condition": {"StringEquals": {"aws:SourceVpce": VPCE}}}),
            (EVE, _GET, OBJECT, ATHENA), (EVE, _GET, OBJECT, DIRECT))),
        Pattern("MFA required (BoolIfExists)", _EXAMPLES, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": "s3:DeleteObject", "Resource": _b("objects"),
                 "Condition": {"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}}),
            (ALICE, "s3:DeleteObject", OBJECT, {**DIRECT, "aws:MultiFactorAuthPresent": "true"}),
            (ALICE, "s3:DeleteObject", OBJECT, DIRECT))),
        Pattern("all but admin roles (ArnNotLike aws:PrincipalArn)", _KEYS, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": _GET, "Resource": _b("objects"),
                 "Condition": {"ArnNotLike": {"aws:PrincipalArn": f"arn:aws:iam::{HOME}:role/adm*"}}}),
            (BOB, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, ATHENA))),
        Pattern("region restriction (aws:RequestedRegion)", _EXAMPLES, bucket(
            None, (ALICE, _GET, OBJECT, {**ATHENA, "aws:RequestedRegion": "eu-west-1"}),
            (ALICE, _GET, OBJECT, {**ATHENA, "aws:RequestedRegion": "us-east-1"}),
            identity=doc({"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
                         {"Effect": "Deny", "Action": "*", "Resource": "*",
                          "Condition": {"StringNotEquals": {"aws:RequestedRegion": ["eu-west-1", "eu-central-1"]}}}))),
        Pattern("principal tag (ABAC)", _EXAMPLES, bucket(
            None, (ALICE, _GET, OBJECT, {**ATHENA, "aws:PrincipalTag/team": "data"}),
            (ALICE, _GET, OBJECT, {**ATHENA, "aws:PrincipalTag/team": "web"}), (ALICE, _GET, OBJECT, ATHENA),
            identity=doc({"Effect": "Allow", "Action": _GET, "Resource": "*",
                          "Condition": {"StringEquals": {"aws:PrincipalTag/team": "data"}}}))),
        Pattern("only through Athena (ForAnyValue:StringEquals aws:CalledVia)", _KEYS, bucket(
            None, (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, DIRECT),
            identity=doc({"Effect": "Allow", "Action": _GET, "Resource": "*",
                          "Condition": {"ForAnyValue:StringEquals": {"aws:CalledVia": ["athena.amazonaws.com"]}}}))),
        Pattern("first service Athena (aws:CalledViaFirst)", _KEYS, bucket(
            None, (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, DIRECT),
            identity=doc({"Effect": "Allow", "Action": _GET, "Resource": "*",
                          "Condition": {"StringEquals": {"aws:CalledViaFirst": "athena.amazonaws.com"}}}))),
        Pattern("no direct access, services only (aws:ViaAWSService)", _KEYS, bucket(
            doc({"Effect": "Deny", "Principal": "*", "Action": _GET, "Resource": _b("objects"),
                 "Condition": {"Bool": {"aws:ViaAWSService": "false"}}}),
            (ALICE, _GET, OBJECT, ATHENA), (ALICE, _GET, OBJECT, DIRECT))),
        Pattern("a user's own home prefix (StringLike on the resource)", _EXAMPLES, bucket(
            None, (DAVE, _GET, f"{BUCKET}/home/dave/a.txt", DIRECT), (DAVE, _GET, f"{BUCKET}/home/eve/a.txt", DIRECT),
            identity=doc({"Effect": "Allow", "Action": _GET, "Resource": f"{BUCKET}/home/dave/*"}))),
    ]


PATTERNS: tuple[Pattern, ...] = tuple(_patterns())
