"""The demo lake's ``enterprise`` database: one table (or workgroup) per access case real lakes have.

Each comes with the policies, keys and Lake Formation set-up that make it.
The demo's Athena enforces each as AWS would; docs/demo.md lists the cases and verdicts.
"alice" stands for the analysts, "bob" for the admins and "carol" for the contractors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from moto.lakeformation.models import lakeformation_backends
from moto.s3.models import s3_backends

from aws_data_mcp.resources.permissions.recommendations import FIXTURE_PARAMETER
from aws_data_mcp_demo.account.lake_tables import TableFiles, in_process_store, put_table
from aws_data_mcp_demo.account.members import ACCOUNTS
from aws_data_mcp_demo.account.seed import DemoInventory
from aws_data_mcp_demo.account.seed_data import (
    ADMIN_ROLE,
    ANALYST_ROLE,
    BUCKET_RESULTS,
    CONTRACTOR_ROLE,
    DEMO_CALLER_USER,
    QUERY_CUTOFF_BYTES,
    Column,
    Table,
    policy,
)

BotoClient = Any

DATABASE = "enterprise"
WORKGROUP = "encrypted-results"
BUCKET = "acme-enterprise-lake"
ARCHIVE_BUCKET = "acme-sales-archive"
VPCE_ONLY_BUCKET = "acme-logs-vpce-only"
VPCE_EXEMPT_BUCKET = "acme-logs-vpce-exempt"
TLS_BUCKET = "acme-sessions-tls"
AUDIT_BUCKET = "acme-audit-records"
LAKE_BUCKET = "acme-lake-invoices"
HOME_BUCKETS = (BUCKET, ARCHIVE_BUCKET, VPCE_ONLY_BUCKET, VPCE_EXEMPT_BUCKET, TLS_BUCKET, AUDIT_BUCKET)
LAKE_ACCOUNT = next(account.id for account in ACCOUNTS if account.name == "lake")
VPC_ENDPOINT = "vpce-0a1b2c3d"
HYBRID_LOCATION = f"arn:aws:s3:::{BUCKET}/hybrid"
GOVERNED_LOCATION = f"arn:aws:s3:::{BUCKET}/governed"
HYBRID_COLUMNS = ("order_id", "amount_usd")
"""The columns of hybrid_orders granted to alice, who opted in."""
FILTER_NAME = "de_rows_without_iban"
FILTER_EXPRESSION = "country = 'DE'"
TAG = {"TagKey": "domain", "TagValues": ["customers"]}
LINK = "shared_invoices"
"""A resource link: the lake account shares finance.invoices through Lake Formation, and this table names it."""
LINK_TARGET = {"CatalogId": LAKE_ACCOUNT, "DatabaseName": "finance", "Name": "invoices"}


def _rows(count: int, make: Any) -> tuple[tuple[Any, ...], ...]:
    return tuple(make(i) for i in range(1, count + 1))


_COUNTRIES = ("DE", "FR", "DE", "NL")
TABLES: dict[str, tuple[Table, dict[str, tuple[tuple[Any, ...], ...]]]] = {}
"""Name -> (its Table, partition directory ("" unpartitioned) -> rows)."""


def _table(name: str, bucket: str, prefix: str, description: str, columns: tuple[Column, ...],
           rows: dict[str, tuple[tuple[Any, ...], ...]], partition_keys: tuple[Column, ...] = ()) -> None:
    TABLES[name] = (Table(DATABASE, name, bucket, prefix, "csv", description, columns, partition_keys,
                          owner="data-governance"), rows)


_table("hybrid_orders", BUCKET, "hybrid/hybrid_orders/", "Orders in a hybrid-access location.", (
    ("order_id", "string", "Order"), ("customer_id", "string", "Customer"),
    ("amount_usd", "decimal(10,2)", "Amount"), ("status", "string", "placed | shipped")),
    {"": _rows(8, lambda i: (f"HO-{i:04d}", f"CUS-{i % 3}", f"{i * 10 + 0.5:.2f}", ("placed", "shipped")[i % 2]))})
_table("lf_no_data_access", BUCKET, "governed/lf_no_data_access/", "Daily metrics governed by Lake Formation.", (
    ("day", "date", "Day"), ("metric", "string", "Metric"), ("value", "bigint", "Value")),
    {"": _rows(6, lambda i: (f"2026-03-{i:02d}", "visits", i * 100))})
_table("filtered_payments", BUCKET, "governed/filtered_payments/", "Payments; a data cells filter keeps DE rows.", (
    ("payment_id", "string", "Payment"), ("country", "string", "ISO country"),
    ("amount_eur", "decimal(10,2)", "Amount"), ("iban", "string", "Payer's IBAN (PII)")),
    {"": _rows(8, lambda i: (f"PAY-{i:04d}", _COUNTRIES[i % 4], f"{i * 7 + 0.25:.2f}",
                             f"DE00{i:018d}"))})
_table("tagged_customers", BUCKET, "governed/tagged_customers/", "Customers, governed by the LF-tag domain.", (
    ("customer_id", "string", "Customer"), ("segment", "string", "Segment")),
    {"": _rows(5, lambda i: (f"CUS-{i}", ("retail", "pro")[i % 2]))})
_table("mixed_key_events", BUCKET, "mixed_key_events/", "Events; each month under its own KMS key.", (
    ("event_id", "string", "Event"), ("event_type", "string", "Type")),
    {f"month=2026-0{m}": _rows(4, lambda i, m=m: (f"EV-{m}{i:03d}", ("view", "click")[i % 2])) for m in (1, 2)},
    (("month", "string", "Month of the event"),))
_table("far_partition_sales", BUCKET, "far_partition_sales/", "Sales; the us partition lives in the archive.", (
    ("sale_id", "string", "Sale"), ("amount_usd", "decimal(10,2)", "Amount")),
    {f"region={r}": _rows(3, lambda i, r=r: (f"S-{r}-{i}", f"{i * 11:.2f}")) for r in ("eu", "us")},
    (("region", "string", "Sales region"),))
for _name, _bucket in (("vpce_only_logs", VPCE_ONLY_BUCKET), ("vpce_exempt_logs", VPCE_EXEMPT_BUCKET)):
    _table(_name, _bucket, f"{_name}/", "Access logs in a bucket reachable through one VPC endpoint.", (
        ("request_time", "string", "When"), ("path", "string", "Path"), ("status", "int", "HTTP status")),
        {"": _rows(4, lambda i: (f"2026-03-01T00:0{i}:00Z", f"/p/{i}", 200))})
_table("tls_only_sessions", TLS_BUCKET, "tls_only_sessions/", "Sessions in a TLS-only bucket.", (
    ("session_id", "string", "Session"), ("minutes", "int", "Length")),
    {"": _rows(5, lambda i: (f"SES-{i}", i * 3))})
_table("lake_owned_invoices", LAKE_BUCKET, "lake_owned_invoices/", "Invoices kept in the lake account's bucket.", (
    ("invoice_id", "string", "Invoice"), ("amount_usd", "decimal(10,2)", "Amount")),
    {"": _rows(4, lambda i: (f"INV-L{i}", f"{i * 50:.2f}"))})
_table("notprincipal_audit", AUDIT_BUCKET, "notprincipal_audit/", "Audit records only the admins may read.", (
    ("event_id", "string", "Event"), ("actor", "string", "Who")),
    {"": _rows(3, lambda i: (f"AUD-{i}", ("alice", "bob", "carol")[i % 3]))})


# --------------------------------------------------------------------------- who is who

def _role(account_id: str, name: str) -> str:
    return f"arn:aws:iam::{account_id}:role/{name}"


def analysts(account_id: str) -> list[str]:
    """alice's role and the plain demo's caller (an IAM user with her rights)."""
    return [_role(account_id, ANALYST_ROLE), f"arn:aws:iam::{account_id}:user/{DEMO_CALLER_USER}"]


def bucket_policies(account_id: str) -> dict[str, str]:
    """The cases' bucket policies, written as AWS's documentation writes them."""
    def arns(bucket: str) -> list[str]:
        return [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]

    vpce_only = {"Sid": "AccessOnlyThroughTheVpcEndpoint", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
                 "Resource": arns(VPCE_ONLY_BUCKET), "Condition": {"StringNotEquals": {"aws:SourceVpce": VPC_ENDPOINT}}}
    exempt = {**vpce_only, "Resource": arns(VPCE_EXEMPT_BUCKET), "Condition": {
        "StringNotEquals": {"aws:SourceVpce": VPC_ENDPOINT},
        "ForAllValues:StringNotEquals": {"aws:CalledVia": ["athena.amazonaws.com"]}}}
    bob = [f"arn:aws:sts::{account_id}:assumed-role/{ADMIN_ROLE}/bob", _role(account_id, ADMIN_ROLE),
           f"arn:aws:iam::{account_id}:root"]
    return {
        ARCHIVE_BUCKET: policy({"Sid": "ArchiveIsNotTheAnalysts", "Effect": "Deny",
                                "Principal": {"AWS": analysts(account_id)}, "Action": "s3:GetObject",
                                "Resource": f"arn:aws:s3:::{ARCHIVE_BUCKET}/*"}),
        VPCE_ONLY_BUCKET: policy(vpce_only),
        VPCE_EXEMPT_BUCKET: policy(exempt),
        TLS_BUCKET: policy(
            {"Sid": "AllowSSLRequestsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
             "Resource": arns(TLS_BUCKET), "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
            {"Sid": "NoSessionsForAnalysts", "Effect": "Deny", "Principal": {"AWS": analysts(account_id)},
             "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{TLS_BUCKET}/*"}),
        AUDIT_BUCKET: policy({"Sid": "OnlyBobReadsTheAudit", "Effect": "Deny", "NotPrincipal": {"AWS": bob},
                              "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{AUDIT_BUCKET}/*"}),
    }


KEY_USE = ("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*", "kms:DescribeKey")


def key_policy(account_id: str, *uses: tuple[Iterable[str], Iterable[str]]) -> str:
    """A key the account administers, used by each (principals, actions) of `uses` only."""
    return policy(
        {"Sid": "AccountAdministersTheKey", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{account_id}:root"},
         "Action": ["kms:Create*", "kms:Describe*", "kms:Enable*", "kms:List*", "kms:Put*", "kms:Update*",
                    "kms:Revoke*", "kms:Disable*", "kms:Get*", "kms:Delete*", "kms:TagResource", "kms:UntagResource",
                    "kms:ScheduleKeyDeletion", "kms:CancelKeyDeletion"], "Resource": "*"},
        *({"Sid": f"KeyUse{index}", "Effect": "Allow", "Principal": {"AWS": list(principals)},
           "Action": list(actions), "Resource": "*"} for index, (principals, actions) in enumerate(uses, 1)))


def key_policies(account_id: str) -> dict[str, str]:
    """Alias -> key policy: the two months' keys of mixed_key_events and the encrypted results' key."""
    admin = [_role(account_id, ADMIN_ROLE)]
    return {
        "alias/acme-events-2026-01": key_policy(account_id, ([*analysts(account_id), *admin], KEY_USE)),
        "alias/acme-events-2026-02": key_policy(account_id, (admin, KEY_USE)),
        "alias/acme-athena-encrypted-results": key_policy(
            account_id, (analysts(account_id), ("kms:Encrypt", "kms:GenerateDataKey*", "kms:DescribeKey")),
            (admin, KEY_USE)),
    }


def link_grants(account_id: str) -> list[tuple[str, dict[str, Any], str]]:
    """(principal, LF resource, permission) of the resource link: DESCRIBE on the link for the three callers,
    SELECT on the shared target for all but carol, who may DESCRIBE it only (her query is refused at SELECT)."""
    carol, readers = _role(account_id, CONTRACTOR_ROLE), [*analysts(account_id), _role(account_id, ADMIN_ROLE)]
    link, target = {"Table": {"DatabaseName": DATABASE, "Name": LINK}}, {"Table": dict(LINK_TARGET)}
    return [*((who, link, "DESCRIBE") for who in (*readers, carol)),
            *((who, target, "SELECT") for who in readers), (carol, target, "DESCRIBE")]


def _share(account_id: str, region: str) -> None:
    """The lake account's share: its Lake Formation grants the home account SELECT and DESCRIBE on the target
    (what RAM carries), grantable, so the home account's administrator grants it on."""
    lake = lakeformation_backends[LAKE_ACCOUNT][region]
    table = {"Table": {"DatabaseName": LINK_TARGET["DatabaseName"], "Name": LINK_TARGET["Name"]}}
    lake.grant_permissions(LAKE_ACCOUNT, {"DataLakePrincipalIdentifier": account_id}, table,
                           ["SELECT", "DESCRIBE"], ["SELECT", "DESCRIBE"])


def lake_formation_grants(account_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(principal, LF resource) granted SELECT."""
    def table(name: str) -> dict[str, Any]:
        return {"Table": {"DatabaseName": DATABASE, "Name": name}}

    admin, carol = _role(account_id, ADMIN_ROLE), _role(account_id, CONTRACTOR_ROLE)
    hybrid = {"TableWithColumns": {"DatabaseName": DATABASE, "Name": "hybrid_orders",
                                   "ColumnNames": list(HYBRID_COLUMNS)}}
    cells = {"DataCellsFilter": {"TableCatalogId": account_id, "DatabaseName": DATABASE,
                                 "TableName": "filtered_payments", "Name": FILTER_NAME}}
    tagged = {"LFTagPolicy": {"CatalogId": account_id, "ResourceType": "TABLE", "Expression": [TAG]}}
    return [("IAM_ALLOWED_PRINCIPALS", table("hybrid_orders")),
            *((who, hybrid) for who in analysts(account_id)),
            *((who, table("lf_no_data_access")) for who in (carol, *analysts(account_id))),
            *((who, cells) for who in analysts(account_id)), (admin, table("filtered_payments")),
            *((who, tagged) for who in analysts(account_id))]


# --------------------------------------------------------------------------- seeding

def _csv(table: Table, rows: tuple[tuple[Any, ...], ...]) -> bytes:
    lines = [",".join(name for name, _, _ in table.columns), *(",".join(map(str, row)) for row in rows)]
    return ("\n".join(lines) + "\n").encode()


def _files(table: Table, partitions: dict[str, tuple[tuple[Any, ...], ...]]) -> TableFiles:
    files = {(f"{d}/" if d else "") + "part-00000.csv": _csv(table, rows) for d, rows in partitions.items()}
    return TableFiles(table, MappingProxyType(files), MappingProxyType({d: len(r) for d, r in partitions.items()}))


def _create_buckets(s3: BotoClient, account_id: str, region: str) -> None:
    for bucket in HOME_BUCKETS:
        s3.create_bucket(Bucket=bucket)
    s3_backends[LAKE_ACCOUNT]["aws"].create_bucket(LAKE_BUCKET, region)  # the lake account's, no policy
    for bucket, document in bucket_policies(account_id).items():
        s3.put_bucket_policy(Bucket=bucket, Policy=document)


def _create_keys(kms: BotoClient, account_id: str) -> dict[str, str]:
    keys = {}
    for alias, document in key_policies(account_id).items():
        keys[alias] = kms.create_key(Description=f"enterprise lake: {alias}", Policy=document)["KeyMetadata"]["Arn"]
        kms.create_alias(AliasName=alias, TargetKeyId=keys[alias])
    return keys


def _put_tables(s3: BotoClient, glue: BotoClient, account_id: str, keys: dict[str, str]) -> None:
    glue.create_database(DatabaseInput={"Name": DATABASE, "LocationUri": f"s3://{BUCKET}/", "Description": (
        "The access cases real lakes have, one a table: hybrid mode, data cells filters, LF-tags, mixed keys, "
        "partitions elsewhere, VPC-endpoint, TLS-only and NotPrincipal bucket policies, another account's bucket."),
        "Parameters": {FIXTURE_PARAMETER: "true"}})  # its cases are listed apart from the README's story
    for table, partitions in TABLES.values():
        store = in_process_store(LAKE_ACCOUNT if table.bucket == LAKE_BUCKET else account_id)
        put_table(store, glue, _files(table, partitions))
    for month, alias in (("2026-01", "alias/acme-events-2026-01"), ("2026-02", "alias/acme-events-2026-02")):
        key = f"mixed_key_events/month={month}/part-00000.csv"
        s3.copy_object(Bucket=BUCKET, Key=key, CopySource={"Bucket": BUCKET, "Key": key},
                       ServerSideEncryption="aws:kms", SSEKMSKeyId=keys[alias], MetadataDirective="COPY")
    key = "far_partition_sales/region=us/part-00000.csv"  # moved to the archive bucket, its partition with it
    s3.copy_object(Bucket=ARCHIVE_BUCKET, Key=key, CopySource={"Bucket": BUCKET, "Key": key})
    s3.delete_object(Bucket=BUCKET, Key=key)
    found = glue.get_partition(DatabaseName=DATABASE, TableName="far_partition_sales", PartitionValues=["us"])
    moved = {k: v for k, v in found["Partition"].items() if k in ("Values", "StorageDescriptor", "Parameters")}
    moved["StorageDescriptor"]["Location"] = f"s3://{ARCHIVE_BUCKET}/far_partition_sales/region=us/"
    glue.update_partition(DatabaseName=DATABASE, TableName="far_partition_sales", PartitionValueList=["us"],
                          PartitionInput=moved)
    glue.create_table(DatabaseName=DATABASE, TableInput={  # a resource link holds no columns or location
        "Name": LINK, "Description": "The lake account's invoices, shared through Lake Formation.",
        "TargetTable": dict(LINK_TARGET)})


def _lake_formation(lakeformation: BotoClient, account_id: str) -> None:
    role = (f"arn:aws:iam::{account_id}:role/aws-service-role/lakeformation.amazonaws.com/"
            "AWSServiceRoleForLakeFormationDataAccess")
    lakeformation.register_resource(ResourceArn=HYBRID_LOCATION, UseServiceLinkedRole=True, RoleArn=role,
                                    HybridAccessEnabled=True)
    lakeformation.register_resource(ResourceArn=GOVERNED_LOCATION, UseServiceLinkedRole=True, RoleArn=role)
    lakeformation.create_data_cells_filter(TableData={
        "TableCatalogId": account_id, "DatabaseName": DATABASE, "TableName": "filtered_payments", "Name": FILTER_NAME,
        "RowFilter": {"FilterExpression": FILTER_EXPRESSION}, "ColumnWildcard": {"ExcludedColumnNames": ["iban"]}})
    lakeformation.create_lf_tag(TagKey="domain", TagValues=["customers", "orders", "payments"])
    lakeformation.add_lf_tags_to_resource(Resource={"Table": {"DatabaseName": DATABASE, "Name": "tagged_customers"}},
                                          LFTags=[TAG])
    for principal, resource in lake_formation_grants(account_id):
        lakeformation.grant_permissions(Principal={"DataLakePrincipalIdentifier": principal}, Resource=resource,
                                        Permissions=["SELECT"])
    for principal, resource, permission in link_grants(account_id):
        lakeformation.grant_permissions(Principal={"DataLakePrincipalIdentifier": principal}, Resource=resource,
                                        Permissions=[permission])
    for principal in analysts(account_id):
        lakeformation.create_lake_formation_opt_in(
            Principal={"DataLakePrincipalIdentifier": principal},
            Resource={"Table": {"DatabaseName": DATABASE, "Name": "hybrid_orders"}})


def _workgroup(athena: BotoClient, key_arn: str) -> None:
    athena.create_work_group(Name=WORKGROUP, Description="Results encrypted with SSE-KMS under their own key.",
                             Configuration={
                                 "ResultConfiguration": {
                                     "OutputLocation": f"s3://{BUCKET_RESULTS}/{WORKGROUP}/",
                                     "EncryptionConfiguration": {"EncryptionOption": "SSE_KMS", "KmsKey": key_arn}},
                                 "EnforceWorkGroupConfiguration": True,
                                 "BytesScannedCutoffPerQuery": QUERY_CUTOFF_BYTES})


def seed_enterprise(session: Any, inventory: DemoInventory, region: str) -> DemoInventory:
    """The enterprise database's buckets, keys, tables, Lake Formation set-up and workgroup (IAM not enforced; moto
    answering in this process, with ``moto_lake_formation`` installed); the inventory with them."""
    account_id = inventory.account_id
    clients = {name: session.client(name, region_name=region) for name in ("s3", "glue", "kms", "lakeformation",
                                                                          "athena")}
    _create_buckets(clients["s3"], account_id, region)
    keys = _create_keys(clients["kms"], account_id)
    _put_tables(clients["s3"], clients["glue"], account_id, keys)
    _share(account_id, region)
    _lake_formation(clients["lakeformation"], account_id)
    _workgroup(clients["athena"], keys["alias/acme-athena-encrypted-results"])
    return replace(inventory, buckets=(*inventory.buckets, *HOME_BUCKETS),
                   workgroups=(*inventory.workgroups, WORKGROUP),
                   databases={**inventory.databases, DATABASE: (*TABLES, LINK)})


def table_names() -> tuple[str, ...]:
    """``enterprise.<table>`` for each case table."""
    return tuple(f"{DATABASE}.{name}" for name in TABLES)

