"""Seed the embedded demo account with a small but realistic data lake (its contents: ``seed_data.py``).

Everything a user could build through the AWS API is built with boto3 calls.
What moto's API cannot express is finished on moto's backend objects, in this process.
The lake's files go straight into moto's S3 backend, in a tenth of PutObject's time.
"""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
from botocore.config import Config

from aws_data_mcp.workflows.table import DEFAULT_TABLE_NAME
from aws_data_mcp_demo.account import lakehouse as lakehouse_seed
from aws_data_mcp_demo.account import s3_tables as s3_tables_seed
from aws_data_mcp_demo.account.lake_tables import Store, TableFiles, in_process_store, lake_files, put_table, s3_store
from aws_data_mcp_demo.account.seed_athena import finish_athena_in_process, seed_athena
from aws_data_mcp_demo.account.seed_data import (
    BUCKET_TAGS,
    BUCKETS,
    CAMPAIGN_KEY,
    DATABASES,
    DEMO_CALLER_USER,
    DENIED_WORKGROUP,
    ENCRYPTED_BUCKET,
    ENCRYPTED_PREFIXES,
    GITHUB_OIDC,
    GROUPS,
    IDENTITY_CENTER_NAME,
    LAKE_FORMATION_LOCATION,
    LAKEHOUSE_DAY_KEY,
    OKTA_OIDC,
    PASSWORD,
    PASSWORDS_LAST_USED,
    PERMISSION_SETS,
    POLICIES,
    RAW_KEY,
    ROLE_TAGS,
    ROLES_LAST_USED,
    SAML_METADATA,
    SAML_PROVIDER,
    SERVICE_USER_WITH_KEY,
    TABLES,
    USERS,
    VERSIONED_BUCKETS,
    WORKGROUPS,
    KmsKey,
    OidcProvider,
    bucket_policies,
    caller_inline_policies,
    extra_objects,
    key_policy,
    lake_formation_grants,
    policy,
    roles,
)
from aws_data_mcp_demo.account.table_facts import (
    seed_column_statistics,
    seed_data_quality,
    seed_view_grants,
    seed_views,
)

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.

_CLIENT_CONFIG = Config(proxies={}, retries={"max_attempts": 2, "mode": "standard"})


@dataclass(frozen=True)
class DemoInventory:
    """What the seed created: for tests and the demo banner. Never holds a secret."""

    account_id: str
    region: str
    caller_user_name: str
    caller_arn: str
    buckets: tuple[str, ...]
    object_count: int
    databases: dict[str, tuple[str, ...]]
    table_locations: dict[str, str]
    workgroups: tuple[str, ...]
    denied_workgroups: tuple[str, ...]
    query_execution_ids: tuple[str, ...]
    query_states: dict[str, int]
    query_workgroups: dict[str, int]
    users: tuple[str, ...]
    groups: tuple[str, ...]
    roles: tuple[str, ...]
    identity_center_instance_arn: str
    permission_sets: tuple[str, ...]
    oidc_providers: tuple[str, ...]
    saml_providers: tuple[str, ...]
    finished_in_process: bool = True
    notes: tuple[str, ...] = field(default=())

    @property
    def table_count(self) -> int:
        """Total number of Glue tables across all databases."""
        return sum(len(tables) for tables in self.databases.values())

    def __str__(self) -> str:
        """One line per area, for banners (the dataclass repr lists every id)."""
        return "; ".join(self.summary_lines())

    def summary_lines(self) -> list[str]:
        """Short human summary for the demo banner."""
        states = ", ".join(f"{count} {state}" for state, count in sorted(self.query_states.items()))
        return [
            f"account {self.account_id} ({self.region}), caller {self.caller_arn}",
            f"S3: {len(self.buckets)} buckets, {self.object_count} objects",
            f"Glue: {len(self.databases)} databases, {self.table_count} tables",
            f"Athena: {len(self.workgroups)} workgroups ({', '.join(self.denied_workgroups)} not describable), "
            f"{len(self.query_execution_ids)} past queries ({states})",
            f"IAM: {len(self.users)} users, {len(self.groups)} groups, {len(self.roles)} roles, "
            f"{len(self.oidc_providers)} OIDC + {len(self.saml_providers)} SAML providers",
            f"Identity Center: {self.identity_center_instance_arn} ({len(self.permission_sets)} permission sets)",
        ]


# --------------------------------------------------------------------------- S3 + Glue

def _create_buckets(s3: BotoClient) -> None:
    for bucket in BUCKETS:
        s3.create_bucket(Bucket=bucket)
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": _tags(BUCKET_TAGS)})
    for bucket in VERSIONED_BUCKETS:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})


def _put_objects(s3: BotoClient, objects: list[tuple[str, str, bytes]]) -> None:
    for bucket, key, body in objects:
        s3.put_object(Bucket=bucket, Key=key, Body=body)


def _seed_lake(store: Store, glue: BotoClient, tables: list[TableFiles]) -> None:
    """The Glue databases, then each table: its files in S3, its Glue table and partitions (``lake_tables``)."""
    for name, database in DATABASES.items():
        glue.create_database(DatabaseInput={"Name": name, **database})
    for table in tables:
        put_table(store, glue, table)


# --------------------------------------------------------------------------- who may read what, beyond IAM

def seed_access(clients: dict[str, BotoClient], account_id: str) -> dict[str, str]:
    """The lake's keys, bucket policies and Lake Formation set-up, before its objects are written (the SSE-KMS
    bucket encrypts them as they arrive). Returns each key's alias -> ARN."""
    keys = {key.alias: _create_key(clients["kms"], account_id, key)
            for key in (RAW_KEY, CAMPAIGN_KEY, LAKEHOUSE_DAY_KEY)}
    clients["s3"].put_bucket_encryption(Bucket=ENCRYPTED_BUCKET, ServerSideEncryptionConfiguration={"Rules": [{
        "ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": keys[RAW_KEY.alias]},
        "BucketKeyEnabled": True}]})
    for bucket, document in bucket_policies(account_id).items():
        clients["s3"].put_bucket_policy(Bucket=bucket, Policy=document)
    lakeformation = clients["lakeformation"]
    lakeformation.register_resource(ResourceArn=LAKE_FORMATION_LOCATION, UseServiceLinkedRole=True, RoleArn=(
        f"arn:aws:iam::{account_id}:role/aws-service-role/lakeformation.amazonaws.com/"
        "AWSServiceRoleForLakeFormationDataAccess"))
    for principal, resource in lake_formation_grants(account_id):
        lakeformation.grant_permissions(Principal={"DataLakePrincipalIdentifier": principal}, Resource=resource,
                                        Permissions=["SELECT"])
    return keys


def _create_key(kms: BotoClient, account_id: str, key: KmsKey) -> str:
    arn = str(kms.create_key(Description=key.description, Policy=key_policy(account_id, key))["KeyMetadata"]["Arn"])
    kms.create_alias(AliasName=key.alias, TargetKeyId=arn)
    return arn


def encrypt_prefixes(s3: BotoClient, keys: dict[str, str]) -> None:
    """The objects of ``ENCRYPTED_PREFIXES`` copied onto themselves with their own key, as an owner re-encrypts."""
    for bucket, prefix, key in (*ENCRYPTED_PREFIXES, lakehouse_seed.NEWEST_DAY):
        for listed in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []):
            s3.copy_object(Bucket=bucket, Key=listed["Key"], CopySource={"Bucket": bucket, "Key": listed["Key"]},
                           ServerSideEncryption="aws:kms", SSEKMSKeyId=keys[key.alias],
                           MetadataDirective="COPY")


# --------------------------------------------------------------------------- IAM, SSO, DynamoDB

def create_workflow_table(dynamodb: BotoClient) -> None:
    """The stack's workflow table, so the demo keeps workflows where the hosted product does."""
    dynamodb.create_table(TableName=DEFAULT_TABLE_NAME, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}])


def _seed_iam(iam: BotoClient, account_id: str, region: str) -> dict[str, Any]:
    policy_arns = {}
    for name, (description, document) in POLICIES.items():
        created = iam.create_policy(PolicyName=name, Description=description, PolicyDocument=document)
        policy_arns[name] = created["Policy"]["Arn"]

    for group, attached in GROUPS.items():
        iam.create_group(GroupName=group)
        iam.attach_group_policy(GroupName=group, PolicyArn=policy_arns[attached])

    caller_arn = ""
    for name, user in USERS.items():
        created = iam.create_user(UserName=name, Path=user.path, Tags=_tags(user.tags))
        if name == DEMO_CALLER_USER:
            caller_arn = created["User"]["Arn"]
        for group in user.groups:
            iam.add_user_to_group(GroupName=group, UserName=name)
        if user.login:
            iam.create_login_profile(UserName=name, Password=PASSWORD, PasswordResetRequired=False)
    for name, document in caller_inline_policies(account_id, region).items():
        iam.put_user_policy(UserName=DEMO_CALLER_USER, PolicyName=name, PolicyDocument=document)

    github, okta_oidc = (_create_oidc_provider(iam, provider) for provider in (GITHUB_OIDC, OKTA_OIDC))
    saml = iam.create_saml_provider(Name=SAML_PROVIDER, SAMLMetadataDocument=SAML_METADATA)["SAMLProviderArn"]

    created_roles = roles(github, okta_oidc, saml)
    for name, role in created_roles.items():
        iam.create_role(
            RoleName=name,
            Description=role.description,
            AssumeRolePolicyDocument=policy(role.trust),
            MaxSessionDuration=role.max_session_seconds,
            Tags=_tags(ROLE_TAGS),
        )
        iam.attach_role_policy(RoleName=name, PolicyArn=policy_arns[role.policy])

    return {
        "caller_arn": caller_arn,
        "users": tuple(USERS),
        "groups": tuple(GROUPS),
        "roles": tuple(created_roles),
        "oidc": (github, okta_oidc),
        "saml": (saml,),
    }


def _tags(tags: dict[str, str]) -> list[dict[str, str]]:
    return [{"Key": key, "Value": value} for key, value in tags.items()]


def _create_oidc_provider(iam: BotoClient, provider: OidcProvider) -> str:
    tags = {"Tags": _tags(provider.tags)} if provider.tags else {}
    return str(iam.create_open_id_connect_provider(Url=provider.url, ClientIDList=list(provider.client_ids),
                                                   ThumbprintList=list(provider.thumbprints),
                                                   **tags)["OpenIDConnectProviderArn"])


def _finish_iam_in_process(account_id: str, region: str, now: datetime) -> None:
    """Set "last used" times (moto documents these attributes as public) and the service user's key."""
    from moto.iam.models import iam_backends
    from moto.utilities.utils import get_partition

    backend = iam_backends[account_id][get_partition(region)]
    roles = {role.name: role for role in backend.roles.values()}
    for name, minutes_ago in ROLES_LAST_USED.items():
        if name in roles:
            roles[name].last_used = now - timedelta(minutes=minutes_ago)
            roles[name].last_used_region = region
    # A programmatic key for the service user, so listings show one. Issued in-process: botocore logs
    # response bodies at DEBUG and CreateAccessKey's body carries the secret.
    if SERVICE_USER_WITH_KEY in backend.users and not backend.users[SERVICE_USER_WITH_KEY].access_keys:
        backend.create_access_key(user_name=SERVICE_USER_WITH_KEY)
    for name, minutes_ago in PASSWORDS_LAST_USED.items():
        user = backend.users.get(name)
        if user is not None:
            user.password_last_used = now - timedelta(minutes=minutes_ago)


def _seed_identity_center(sso_admin: BotoClient) -> tuple[str, tuple[str, ...]]:
    """moto pre-creates one Identity Center instance per region; name it and add permission sets."""
    instance_arn = sso_admin.list_instances()["Instances"][0]["InstanceArn"]
    sso_admin.update_instance(InstanceArn=instance_arn, Name=IDENTITY_CENTER_NAME)
    names = []
    for name, description, duration in PERMISSION_SETS:
        created = sso_admin.create_permission_set(
            InstanceArn=instance_arn, Name=name, Description=description, SessionDuration=duration
        )
        sso_admin.provision_permission_set(
            InstanceArn=instance_arn,
            PermissionSetArn=created["PermissionSet"]["PermissionSetArn"],
            TargetType="ALL_PROVISIONED_ACCOUNTS",
        )
        names.append(name)
    return instance_arn, tuple(names)


# --------------------------------------------------------------------------- entry point

def seed_data_lake(session: boto3.Session, endpoint_url: str | None, *,
                   now: datetime | None = None) -> DemoInventory:
    """Create the demo data lake through boto3 calls against ``endpoint_url`` (None: AWS's own endpoints, which
    ``DemoAccount`` has moto answer in-process).

    ``session`` must be allowed to create everything (moto accepts any keys while IAM
    enforcement is off). The demo caller user is created with its policies but no access
    key: the caller's key is issued by ``DemoAccount`` so it never passes through here.
    """
    now = now or datetime.now(UTC)
    region = session.region_name or "us-east-1"

    def client(name: str) -> BotoClient:
        return session.client(name, endpoint_url=endpoint_url, region_name=region, config=_CLIENT_CONFIG)

    clients = {name: client(name) for name in ("sts", "s3", "glue", "athena", "iam", "sso-admin", "dynamodb", "kms",
                                               "lakeformation")}
    account_id = clients["sts"].get_caller_identity()["Account"]
    today = now.date()

    # Buckets first (objects and Athena results need them); then independent services in parallel: against an
    # endpoint that halves the time (moto's server is threaded; one client per thread is safe), answered
    # in-process they take turns at no extra cost.
    _create_buckets(clients["s3"])
    keys = seed_access(clients, account_id)
    objects = extra_objects(account_id, region, today)
    tables = list(lake_files().values())
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="demo-seed") as pool:
        puts = [pool.submit(_put_objects, clients["s3"], objects)]
        store = in_process_store(account_id) if endpoint_url is None else s3_store(clients["s3"])
        glue_done = pool.submit(_seed_lake, store, clients["glue"], tables)
        lakehouse = pool.submit(lakehouse_seed.seed_lakehouse, client("glue"), account_id,
                                lake_files()["sales.orders"].files, store) if endpoint_url is None else None
        athena_done = pool.submit(seed_athena, clients["athena"], account_id, region, now)
        iam_done = pool.submit(_seed_iam, clients["iam"], account_id, region)
        sso_done = pool.submit(_seed_identity_center, clients["sso-admin"])
        pool.submit(create_workflow_table, clients["dynamodb"]).result()
        for future in puts:
            future.result()
        glue_done.result()
        seed_column_statistics(clients["glue"], tables, now)
        views = seed_views(clients["glue"], account_id, region)
        seed_view_grants(clients["lakeformation"], account_id)
        if endpoint_url is None:  # a Data Quality result is put on moto's backend: in this process only
            seed_data_quality(account_id, region, now)
        if lakehouse is not None:
            lakehouse.result()
        encrypt_prefixes(clients["s3"], keys)
        started = athena_done.result()
        iam_info = iam_done.result()
        s3_table = s3_tables_seed.seed_s3_table(client("s3tables"), client("glue"), clients["iam"], account_id,
                                                region, lake_files()["sales.orders"].files) \
            if endpoint_url is None else None
        instance_arn, permission_sets = sso_done.result()

    notes: list[str] = [] if lakehouse is not None and s3_table is not None else [
        "moto backend not in this process: no lakehouse nor S3 table (pyiceberg writes its files in-process)"]
    finished = finish_athena_in_process(started, account_id, region, now)
    if finished:
        _finish_iam_in_process(account_id, region, now)
        states = Counter(entry[3] for _, entry in started)
    else:
        notes.append("moto backend not in this process: query states left as moto reports them (SUCCEEDED)")
        states = Counter({"SUCCEEDED": len(started)})

    databases: dict[str, tuple[str, ...]] = {
        name: tuple(table.name for table in TABLES if table.database == name) for name in DATABASES
    }
    databases["sales"] = (*databases["sales"], *views)
    locations = {f"{t.database}.{t.name}": f"s3://{t.bucket}/{t.prefix}" for t in TABLES}
    if lakehouse is not None:
        databases[lakehouse_seed.DATABASE] = (lakehouse_seed.TABLE, lakehouse_seed.CLICKSTREAM)
        locations[f"{lakehouse_seed.DATABASE}.{lakehouse_seed.TABLE}"] = f"{lakehouse_seed.LOCATION}/"
        locations[f"{lakehouse_seed.DATABASE}.{lakehouse_seed.CLICKSTREAM}"] = \
            f"s3://{lakehouse_seed.ORDERS_BUCKET}/{lakehouse_seed.CLICKSTREAM_PREFIX}"
    return DemoInventory(
        account_id=account_id,
        region=region,
        caller_user_name=DEMO_CALLER_USER,
        caller_arn=iam_info["caller_arn"],
        buckets=BUCKETS,
        object_count=len(objects) + sum(len(table.files) for table in tables),
        databases=databases,
        table_locations=locations,
        workgroups=("primary", *WORKGROUPS),
        denied_workgroups=(DENIED_WORKGROUP,),
        query_execution_ids=tuple(execution_id for execution_id, _ in started),
        query_states=dict(states),
        query_workgroups=dict(Counter(entry[1] for _, entry in started)),
        users=iam_info["users"],
        groups=iam_info["groups"],
        roles=iam_info["roles"],
        identity_center_instance_arn=instance_arn,
        permission_sets=permission_sets,
        oidc_providers=iam_info["oidc"],
        saml_providers=iam_info["saml"],
        finished_in_process=finished,
        notes=tuple(notes),
    )
