"""The demo's other accounts: a lake and a sandbox beside home, reached only as the caller.

moto keeps an account per id, and a key acts in the account that issued it. So each account has its
own buckets, Glue catalog and IAM. Each holds the member template's roles, with `hosted/trust.py`'s
trust. `MEMBER_ROLES` maps callers to accounts: alice reaches two, bob three, carol one. moto issues
keys for any role, so `REFUSE_MISSING_ROLES` makes STS refuse as AWS does (docs/accounts.md). The
local caller, an IAM user, reaches both through `LOCAL_ROLE`, as with ACCOUNT_ROLE.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from types import MappingProxyType
from typing import Any

import boto3
from moto.core.exceptions import AccessDeniedError
from moto.iam.models import iam_backends
from moto.sts.models import STSBackend
from moto.utilities.utils import get_partition

from aws_data_mcp.identity.hosted.trust import member_iam_trust, oidc_trust
from aws_data_mcp_demo.account.callers import CALLERS, DEMO_AUDIENCE, DEMO_PROVIDER, oidc_settings
from aws_data_mcp_demo.account.lake_tables import TableFiles, in_process_store, put_table
from aws_data_mcp_demo.account.seed_data import (
    DEMO_CALLER_USER,
    QUERY_CUTOFF_BYTES,
    Column,
    Table,
    caller_read_policy,
    policy,
)
from aws_data_mcp_demo.emulator.extensions import Extension

HOME = "home"
MEMBER_WORKGROUP = "analytics"
"""Each member account's query workgroup: named as the first of the deployment's query workgroups
(``QUERY_WORKGROUPS``), so a query there runs where it would at home (docs/accounts.md)."""
LOCAL_ROLE = "aws-data-mcp-demo-reader"
"""The role the local demo's caller assumes in each member account (the local demo's ACCOUNT_ROLE)."""


@dataclass(frozen=True)
class MemberAccount:
    name: str
    id: str
    bucket: str
    database: str
    description: str
    tables: tuple[tuple[Table, tuple[tuple[Any, ...], ...]], ...]
    """Each table and its rows (one CSV file)."""
    caller_roles: tuple[str, ...]
    """The hosted demo callers' roles this account holds: who may reach it."""

    @property
    def results_bucket(self) -> str:
        """Where the account's workgroup writes query results (a bucket of its own, as Athena's results are)."""
        return f"{self.bucket}-athena-results"

    @property
    def result_location(self) -> str:
        return f"s3://{self.results_bucket}/{MEMBER_WORKGROUP}/"


def _table(database: str, bucket: str, name: str, description: str, columns: tuple[Column, ...],
           owner: str = "finance") -> Table:
    return Table(database, name, bucket, f"{database}/{name}/", "csv", description, columns, owner=owner)


_FIRST_DAY = date(2026, 1, 1)
_INVOICES = tuple((f"INV-{i:05d}", f"CUS-{1000000 + (i * 7919) % 60000}", (_FIRST_DAY + timedelta(i % 120)).isoformat(),
                   f"{(i * 37) % 900 + 49.5:.2f}", ("paid", "open", "overdue")[i % 3]) for i in range(1, 121))
_PAYMENTS = tuple((f"PAY-{i:05d}", invoice[0], (date.fromisoformat(invoice[2]) + timedelta(14)).isoformat(),
                   invoice[3]) for i, invoice in enumerate(_INVOICES, 1) if invoice[4] == "paid")

_LAKE_BUCKET, _SANDBOX_BUCKET = "acme-finance-lake", "acme-sandbox-scratch"
ACCOUNTS: tuple[MemberAccount, ...] = (
    MemberAccount("lake", "111122223333", _LAKE_BUCKET, "finance",
                  "The finance team's lake: invoices and their payments (2026-01 to 2026-04).", (
                      (_table("finance", _LAKE_BUCKET, "invoices", "One row per invoice sent (120).", (
                          ("invoice_id", "string", "Invoice identifier (INV-nnnnn)"),
                          ("customer_id", "string", "Customer identifier, as the home account's sales.customers"),
                          ("issued_on", "date", "Invoice date"), ("amount_usd", "decimal(12,2)", "Amount due"),
                          ("status", "string", "paid | open | overdue"))), _INVOICES),
                      (_table("finance", _LAKE_BUCKET, "payments", "One row per payment received.", (
                          ("payment_id", "string", "Payment identifier"),
                          ("invoice_id", "string", "Invoice paid, joins finance.invoices"),
                          ("paid_on", "date", "Payment date"), ("amount_usd", "decimal(12,2)", "Amount paid"))),
                       _PAYMENTS)),
                  ("demo-analyst-role", "demo-admin-role")),
    MemberAccount("sandbox", "444455556666", _SANDBOX_BUCKET, "scratch",
                  "A scratch database for experiments; nothing here is curated.", (
                      (_table("scratch", _SANDBOX_BUCKET, "experiments", "Experiments someone is trying out.", (
                          ("experiment", "string", "Name"), ("owner", "string", "Who runs it"),
                          ("started_on", "date", "Start date")), "data-science"),
                       (("price-test", "bob", "2026-04-01"), ("new-banner", "bob", "2026-04-12"))),),
                  ("demo-admin-role",)),
)
"""The member accounts; the home account is the demo account itself."""

MEMBER_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType({a.name: a.caller_roles for a in ACCOUNTS})


def demo_accounts(home_id: str) -> tuple[tuple[str, str], ...]:
    """The demo's AWS_DATA_MCP_ACCOUNTS: the home account and the member accounts, short name -> id."""
    return ((HOME, home_id), *((account.name, account.id) for account in ACCOUNTS))


def reach() -> dict[str, tuple[str, ...]]:
    """Hosted demo caller -> the accounts they reach (home first)."""
    return {caller.name: (HOME, *(a.name for a in ACCOUNTS if caller.role in a.caller_roles)) for caller in CALLERS}


def accounts_line(home_id: str, hosted: bool = False) -> str:
    """The banners' one line about the accounts (hosted: who reaches which)."""
    listed = ", ".join(f"{name} {number}" for name, number in demo_accounts(home_id))
    who = "; " + ", ".join(f"{name} reaches {'+'.join(where)}" for name, where in reach().items()) if hosted else ""
    return f"Accounts: {listed}: add ?account=lake to any read, ?account=* to the catalog views{who}"


# --------------------------------------------------------------------------- seeding

def _csv(table: Table, rows: tuple[tuple[Any, ...], ...]) -> bytes:
    lines = [",".join(name for name, _, _ in table.columns), *(",".join(map(str, row)) for row in rows)]
    return ("\n".join(lines) + "\n").encode()


def _clients_in(account_id: str, region: str, seed: boto3.Session) -> tuple[list[Any], str]:
    """S3, Glue, IAM and Athena clients acting in `account_id` while IAM is not enforced (moto resolves a key's
    account from where it was issued), made by the seed's session (its service models already loaded), and the
    key's id, to be withdrawn after the seed."""
    key = iam_backends[account_id][get_partition(region)].create_temp_access_key()
    return [seed.client(name, aws_access_key_id=key.access_key_id, aws_secret_access_key=key.secret_access_key)
            for name in ("s3", "glue", "iam", "athena")], key.access_key_id


def _role(iam: Any, account: MemberAccount, name: str, statements: list[dict[str, Any]]) -> None:
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=policy(*statements),
                    Description="aws-data-mcp member-account role (member-account.yaml)")
    iam.put_role_policy(RoleName=name, PolicyName="read", PolicyDocument=caller_read_policy())
    iam.put_role_policy(RoleName=name, PolicyName="query-results", PolicyDocument=policy({
        "Sid": "WriteThisAccountsQueryResults", "Effect": "Allow",
        "Action": ["s3:PutObject", "s3:AbortMultipartUpload"], "Resource": f"arn:aws:s3:::{account.results_bucket}/*"}))


def _seed_workgroup(athena: Any, s3: Any, account: MemberAccount) -> None:
    """The account's query workgroup, guarded as the home account's are (a cutoff Athena enforces), and the
    bucket its results go to."""
    s3.create_bucket(Bucket=account.results_bucket)
    athena.create_work_group(Name=MEMBER_WORKGROUP, Description=f"Queries of the {account.name} account's data "
                             "(10 MB per-query cutoff, enforced).", Configuration={
                                 "ResultConfiguration": {"OutputLocation": account.result_location},
                                 "EnforceWorkGroupConfiguration": True,
                                 "BytesScannedCutoffPerQuery": QUERY_CUTOFF_BYTES,
                                 "EngineVersion": {"SelectedEngineVersion": "Athena engine version 3"}})


def _seed_member(account: MemberAccount, home_id: str, region: str, seed: boto3.Session) -> None:
    (s3, glue, iam, athena), key_id = _clients_in(account.id, region, seed)
    s3.create_bucket(Bucket=account.bucket)
    _seed_workgroup(athena, s3, account)
    glue.create_database(DatabaseInput={"Name": account.database, "Description": account.description,
                                        "LocationUri": f"s3://{account.bucket}/{account.database}/"})
    for table, rows in account.tables:
        put_table(in_process_store(account.id), glue, TableFiles(
            table, MappingProxyType({"part-00000.csv": _csv(table, rows)}), MappingProxyType({"": len(rows)})))
    home_roles = {caller.role: f"arn:aws:iam::{home_id}:role/{caller.role}" for caller in CALLERS}
    settings = oidc_settings(home_roles)
    for role in account.caller_roles:
        _role(iam, account, role, [member_iam_trust([home_roles[role]]),
                          *oidc_trust(settings, home_roles[role], DEMO_PROVIDER, DEMO_AUDIENCE, account=account.id)])
    _role(iam, account, LOCAL_ROLE, [{"Effect": "Allow", "Action": "sts:AssumeRole",
                             "Principal": {"AWS": f"arn:aws:iam::{home_id}:user/{DEMO_CALLER_USER}"}}])
    iam_backends[account.id][get_partition(region)].access_keys.pop(key_id)


def seed_member_accounts(seed: boto3.Session, home_id: str, region: str, hosted_callers: bool) -> None:
    """The member accounts' data and roles, and the home identities' permission to assume those roles (a cross-
    account AssumeRole needs it on both sides). Run while IAM is not enforced."""
    for account in ACCOUNTS:
        _seed_member(account, home_id, region, seed)
    targets = [account.id for account in ACCOUNTS]
    carry = policy({"Effect": "Allow", "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"],
                    "Resource": [f"arn:aws:iam::{number}:role/{LOCAL_ROLE}" for number in targets]})
    home_iam = seed.client("iam")
    home_iam.put_user_policy(UserName=DEMO_CALLER_USER, PolicyName="reach-member-accounts", PolicyDocument=carry)
    if hosted_callers:
        for role in {caller.role for caller in CALLERS}:
            home_iam.put_role_policy(RoleName=role, PolicyName="reach-member-accounts", PolicyDocument=policy(
                {"Effect": "Allow", "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"],
                 "Resource": [f"arn:aws:iam::{number}:role/{role}" for number in targets]}))


def hosted_environment(home_id: str) -> dict[str, str]:
    """What the hosted demos configure: every account, each caller's own role name there (`{role}`), and the demo
    roles' session names standing for a person (as Identity Center's do), so an iam caller carries their
    SourceIdentity into a member account, whose trust requires it."""
    return {"AWS_DATA_MCP_ACCOUNTS": json.dumps(dict(demo_accounts(home_id))),
            "AWS_DATA_MCP_PINNED_SESSION_ROLES": ",".join(sorted({caller.role for caller in CALLERS}))}


# --------------------------------------------------------------------------- STS refuses a role that is not there

class _NoSuchRole(AccessDeniedError):
    """STS's 403 AccessDenied for a role ARN no account holds."""

    def __init__(self, role_arn: str) -> None:
        super(AccessDeniedError, self).__init__("AccessDenied", f"Not authorized to assume {role_arn}")

def _refusing_missing_roles(assume: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(assume)
    def assume_role(self: STSBackend, **kwargs: Any) -> Any:
        role_arn = str(kwargs.get("role_arn"))
        account_id = role_arn.split(":")[4] if role_arn.count(":") >= 5 else ""
        roles = iam_backends[account_id][self.partition].roles if account_id.isdigit() else {}
        if not any(role.arn == role_arn for role in roles.values()):
            raise _NoSuchRole(role_arn)
        return assume(self, **kwargs)

    return assume_role


REFUSE_MISSING_ROLES: tuple[Extension, ...] = (
    Extension(STSBackend, "assume_role", _refusing_missing_roles(STSBackend.assume_role)),)
"""STS refuses a role that does not exist, as AWS does (moto issues credentials for any role ARN)."""
