"""The access explainer of a table in an S3 Tables catalog (`s3tablescatalog/<bucket>`), link by link.

Athena reads it through Glue's catalog of the bucket, then with S3 Tables' own actions as the caller.
What can be asked without reading data is probed; `s3tables:GetTableData` has no such call, so IAM's
simulator decides it, weighed with the table bucket's and the table's policies. An unreadable policy
leaves it `unknown`: a Deny there would refuse it. Lake Formation counts where it governs the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer import lake_formation as lf
from aws_data_mcp.explainer.identity_policies import denial_fixes
from aws_data_mcp.explainer.model import (
    Fix,
    Governor,
    Link,
    PolicyKind,
    Unseen,
    Verdict,
    answered,
    delegates,
    identity_fix,
    link,
    overall,
    parsed_policy,
    resource_policy_fix,
    statements,
    unseen_from_the_callers_seat,
    unsettled,
    verdict_of,
)
from aws_data_mcp.explainer.storage_links import Subject, key_policy, own_policies, policy_evidence
from aws_data_mcp.explainer.summary import summary
from aws_data_mcp.explainer.workgroup_checks import WorkgroupChecks, first_usable, no_workgroup_link
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

S3_TABLES_ROOT = "s3tablescatalog"
GLUE_ACTIONS = ("glue:GetCatalog", "glue:GetDatabase", "glue:GetTable")
PROBED = (
    "s3tables:GetTableBucket",
    "s3tables:GetNamespace",
    "s3tables:GetTable",
    "s3tables:GetTableMetadataLocation",
)
"""What Athena asks S3 Tables as the caller that the caller can ask too, with no data read."""
DATA = "s3tables:GetTableData"
ON_THE_BUCKET = ("s3tables:GetTableBucket", "s3tables:GetNamespace")
DECRYPT = "kms:Decrypt"


class S3TableAccess(TypedDict):
    summary: str
    catalog: str
    database: str
    table: str
    table_bucket_arn: str
    table_arn: str | None
    """S3 Tables' ARN of the table (its id, as GetTable names it); null where it could not be read."""
    principal_arn: str | None
    simulated_as: str | None
    query: Verdict
    """Would a SELECT on the table run: every link (in the workgroup below) holds."""
    workgroup: str | None
    decided_by: Governor
    read_columns: list[str] | None
    links: list[Link]
    workgroups: dict[str, list[Link]]
    unseen: list[Unseen]


def bucket_of(catalog: str) -> str | None:
    """The table bucket an S3 Tables catalog names (`s3tablescatalog/<bucket>`), else None."""
    root, _, bucket = catalog.partition("/")
    return bucket if root == S3_TABLES_ROOT and bucket and "/" not in bucket else None


def _absent_is_none(call: Any, **request: Any) -> dict[str, Any] | None:
    """A resource policy; None where there is none (S3 Tables answers that NotFoundException)."""
    try:
        return parsed_policy(call(**request)["resourcePolicy"])
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "NotFoundException":
            raise
        return None


def _encryption(s3tables: Any, bucket_arn: str) -> dict[str, Any]:
    """The table bucket's default encryption (sseAlgorithm, kmsKeyArn)."""
    return dict(
        s3tables.get_table_bucket_encryption(tableBucketARN=bucket_arn).get(
            "encryptionConfiguration"
        )
        or {}
    )


def _simulate(
    iam: Any, principal: str, actions: Sequence[str], arns: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """IAM's simulator for the caller: each "action resource" pair's EvaluationResult."""
    pages = iam.get_paginator("simulate_principal_policy").paginate(
        PolicySourceArn=principal, ActionNames=list(actions), ResourceArns=list(arns)
    )
    return {
        f"{r['EvalActionName']} {r.get('EvalResourceName')}": r
        for page in pages
        for r in page.get("EvaluationResults", [])
    }


@dataclass(frozen=True)
class Place:
    """The table's names and ARNs, and the caller they are judged for."""

    subject: Subject
    catalog: str
    catalog_id: str
    database: str
    table: str
    bucket_arn: str
    glue_arns: tuple[str, ...]
    """Glue's catalog, its S3 Tables root, the bucket's catalog, the database, the table."""
    table_arn: str | None = None

    def policy_targets(self, arn: str) -> list[tuple[PolicyKind, str, str]]:
        """(kind, target, command) of the policies that speak of `arn`: the bucket's, and the table's."""
        bucket = (
            f"aws s3tables put-table-bucket-policy --table-bucket-arn {self.bucket_arn} "
            "--resource-policy {policy}"
        )
        found: list[tuple[PolicyKind, str, str]] = [
            ("table_bucket_policy", self.bucket_arn, bucket)
        ]
        if arn != self.bucket_arn:
            found.append(
                (
                    "table_policy",
                    arn,
                    f"aws s3tables put-table-policy --table-bucket-arn {self.bucket_arn} "
                    f"--namespace {self.database} --name {self.table} --resource-policy {{policy}}",
                )
            )
        return found


@dataclass(frozen=True)
class Policies:
    """The table bucket's and table's policies as read (None: none; an error: unreadable)."""

    bucket: Outcome[Any, Any]
    table: Outcome[Any, Any]

    def of(self, kind: PolicyKind) -> Outcome[Any, Any]:
        return self.bucket if kind == "table_bucket_policy" else self.table

    def denying(
        self, place: Place, action: str, arn: str
    ) -> list[tuple[PolicyKind, str, str, list[Any]]]:
        subject = place.subject
        found = []
        for kind, target, command in place.policy_targets(arn):
            outcome = self.of(kind)
            said = (
                statements(outcome.value, "Deny", action, arn, subject.identities, subject.account)
                if outcome.ok
                else []
            )
            if said:
                found.append((kind, target, command, said))
        return found

    def allowing(self, place: Place, action: str, arn: str) -> bool:
        subject = place.subject
        return any(
            statements(self.of(kind).value, "Allow", action, arn, subject.identities, None)
            for kind, _, _ in place.policy_targets(arn)
            if self.of(kind).ok
        )

    def unreadable(self, place: Place, arn: str) -> list[str]:
        return [kind for kind, _, _ in place.policy_targets(arn) if not self.of(kind).ok]

    def evidence(self) -> dict[str, str]:
        return {
            "table_bucket_policy": policy_evidence(self.bucket),
            "table_policy": policy_evidence(self.table),
        }


def _fixes(
    place: Place,
    policies: Policies,
    action: str,
    arn: str,
    own: Outcome[Any, Any] | None,
    simulated: Mapping[str, Any] | None = None,
) -> list[Fix]:
    """A policy's Deny narrowed where one denies it, else the caller's identity policies fixed."""
    subject = place.subject
    denying = policies.denying(place, action, arn)
    if denying and subject.principal:
        return [
            resource_policy_fix(
                kind,
                target,
                policies.of(kind).value,
                subject.principal,
                [action],
                arn,
                said,
                command,
                subject.identities,
                subject.reach,
                whole=target if kind == "table_policy" else f"{place.bucket_arn}*",
            )
            for kind, target, command, said in denying
        ]
    removed = (
        denial_fixes(own.value, action, arn, simulated, subject.reach)
        if own is not None and own.ok
        else []
    )
    return [*removed, identity_fix(subject.principal, [action], [arn], subject.reach)]


def _settle_policy(place: Place, unreadable: Sequence[str]) -> str:
    commands = {
        "table_bucket_policy": f"aws s3tables get-table-bucket-policy --table-bucket-arn {place.bucket_arn}",
        "table_policy": f"aws s3tables get-table-policy --table-bucket-arn {place.bucket_arn} --namespace "
        f"{place.database} --name {place.table}",
    }
    return (
        "The caller may not read "
        + " nor ".join(k.replace("_", " ") for k in unreadable)
        + ", where a Deny "
        "would refuse this: an administrator runs " + "; ".join(commands[k] for k in unreadable)
    )


def _probe_link(
    place: Place,
    policies: Policies,
    action: str,
    outcome: Outcome[Any, Any],
    own: Outcome[Any, Any] | None,
) -> Link:
    """A read the caller made as Athena makes it: AWS's own answer, policies and all."""
    arn = (
        place.bucket_arn
        if action in ON_THE_BUCKET
        else place.table_arn or f"{place.bucket_arn}/table/*"
    )
    return link(
        action,
        arn,
        verdict_of(outcome),
        answered(outcome) | policies.evidence(),
        fix=_fixes(place, policies, action, arn, own),
        settle=unsettled(outcome),
    )


def _decision(simulated: Outcome[Any, Any] | None, action: str, arn: str) -> dict[str, Any] | None:
    if simulated is None or not simulated.ok:
        return None
    return (simulated.value or {}).get(f"{action} {arn}")


def _simulated_link(
    place: Place,
    policies: Policies,
    action: str,
    arn: str,
    simulated: Outcome[Any, Any] | None,
    own: Outcome[Any, Any] | None,
) -> Link:
    """IAM's simulator for the caller's identity policies, weighed with the bucket's and table's policies."""
    result = _decision(simulated, action, arn)
    decision = result.get("EvalDecision") if result else None
    evidence = {"simulated_identity_policies": decision} | policies.evidence()
    denying, unreadable = policies.denying(place, action, arn), policies.unreadable(place, arn)
    fix = _fixes(place, policies, action, arn, own, result)
    if denying:
        return link(
            action, arn, "denied", evidence | {"denied_by": [k for k, *_ in denying]}, fix=fix
        )
    if decision is None:
        why = (
            unsettled(simulated)
            if simulated is not None
            else (
                "IAM's simulator cannot simulate the caller (only IAM users and roles): an administrator runs aws iam "
                f"simulate-principal-policy --action-names {action} --resource-arns {arn} for the caller's role"
            )
        )
        return link(
            action,
            arn,
            "unknown",
            evidence | (answered(simulated) if simulated else {}),
            settle=why,
        )
    if decision == "explicitDeny":
        return link(action, arn, "denied", evidence, fix=fix)
    if unreadable:
        return link(action, arn, "unknown", evidence, settle=_settle_policy(place, unreadable))
    if decision == "allowed" or policies.allowing(place, action, arn):
        return link(action, arn, "allowed", evidence)
    return link(action, arn, "denied", evidence, fix=fix)


def _catalog_link(place: Place, simulated: Outcome[Any, Any] | None) -> Link:
    """glue:GetCatalog on each catalog of the path, as IAM's simulator decides it (no probe of its own)."""
    arns = place.glue_arns[:3]
    decisions = {
        arn: (_decision(simulated, "glue:GetCatalog", arn) or {}).get("EvalDecision")
        for arn in arns
    }
    evidence = {"simulated_identity_policies": decisions}
    missing = [arn for arn, decision in decisions.items() if decision != "allowed"]
    if simulated is None or not simulated.ok or any(d is None for d in decisions.values()):
        settle = (
            unsettled(simulated)
            if simulated is not None
            else "IAM's simulator cannot simulate the caller"
        )
        return link(
            "glue:GetCatalog",
            arns[-1],
            "unknown",
            evidence | (answered(simulated) if simulated else {}),
            settle=settle,
        )
    return link(
        "glue:GetCatalog",
        arns[-1],
        "denied" if missing else "allowed",
        evidence,
        fix=[
            identity_fix(place.subject.principal, ["glue:GetCatalog"], missing, place.subject.reach)
        ],
    )


def _glue_link(place: Place, action: str, outcome: Outcome[Any, Any]) -> Link:
    if outcome.error is not None and outcome.error.code is ErrorCode.NOT_FOUND:
        raise outcome.error
    arn = place.glue_arns[3] if action == "glue:GetDatabase" else place.glue_arns[4]
    return link(
        action,
        arn,
        verdict_of(outcome),
        answered(outcome),
        settle=unsettled(outcome),
        fix=[
            identity_fix(
                place.subject.principal,
                list(GLUE_ACTIONS),
                list(place.glue_arns),
                place.subject.reach,
            )
        ],
    )


def _encryption_key(encryption: Outcome[Any, Any]) -> str | None:
    found = (encryption.value or {}) if encryption.ok else {}
    return (
        str(found["kmsKeyArn"])
        if found.get("sseAlgorithm") == "aws:kms" and found.get("kmsKeyArn")
        else None
    )


def _decrypt_link(
    place: Place,
    encryption: Outcome[Any, Any],
    key_read: Outcome[Any, Any] | None,
    simulated: Outcome[Any, Any] | None,
) -> Link:
    """The bucket's KMS key: the caller's kms:Decrypt (simulated), weighed with the key's policy."""
    if not encryption.ok:
        return link(
            DECRYPT,
            "unknown",
            "unknown",
            answered(encryption),
            settle="The table bucket's encryption "
            f"could not be read: an administrator runs aws s3tables get-table-bucket-encryption "
            f"--table-bucket-arn {place.bucket_arn}",
        )
    key = _encryption_key(encryption)
    if key is None:
        return link(
            DECRYPT,
            "none",
            "allowed",
            {
                "bucket_encryption": encryption.value,
                "answered": "no KMS key: S3 Tables decrypts with its own",
            },
        )
    subject = place.subject
    result = _decision(simulated, DECRYPT, key)
    decision = result.get("EvalDecision") if result else None
    policy = key_read.value if key_read is not None and key_read.ok else None
    evidence = {
        "bucket_encryption": encryption.value,
        "simulated_identity_policies": decision,
        "key_policy": policy_evidence(key_read) if key_read is not None else "unread",
    }
    denying = (
        statements(policy, "Deny", DECRYPT, key, subject.identities, subject.account)
        if policy
        else []
    )
    delegated = delegates(policy, DECRYPT, key, subject.account)
    # the key policy's fix where it denies or does not let IAM grant it; else the identity's
    fix = (
        [
            resource_policy_fix(
                "key_policy",
                key,
                policy,
                subject.principal,
                [DECRYPT],
                "*",
                denying,
                f"aws kms put-key-policy --key-id {key.rsplit('/', 1)[-1]} --policy-name default "
                "--policy {policy}",
                subject.identities,
                subject.reach,
            )
        ]
        if policy and subject.principal and (denying or not delegated)
        else [identity_fix(subject.principal, [DECRYPT], [key], subject.reach)]
    )
    if denying:
        return link(DECRYPT, key, "denied", evidence, fix=fix)
    if policy is None or decision is None:
        return link(
            DECRYPT,
            key,
            "unknown",
            evidence,
            settle="A key administrator reads the key's policy (aws kms "
            f"get-key-policy --key-id {key} --policy-name default) and simulates kms:Decrypt for the caller",
        )
    named = statements(policy, "Allow", DECRYPT, key, subject.identities, None)
    allowed = bool(named) or (delegated and decision == "allowed")
    return link(DECRYPT, key, "allowed" if allowed else "denied", evidence, fix=fix)


def _lake_link(place: Place, found: Outcome[Any, Any]) -> Link:
    """Where Lake Formation does not govern the table (or that is unknown): its link, without its calls."""
    resource = place.glue_arns[4]
    if not found.ok:
        return link(
            lf.SELECT,
            resource,
            "unknown",
            answered(found),
            settle="Whether Lake Formation governs the table "
            "is known once glue:GetTable is allowed: read this again then",
        )
    return link(
        lf.SELECT,
        resource,
        "allowed",
        {
            "answered": "the table is not registered with Lake Formation "
            "(IsRegisteredWithLakeFormation false): IAM decides"
        },
    )


def _lake_formation(
    request: ResourceRequest, place: Place, columns: Sequence[str]
) -> Chain[tuple[Link, list[str] | None, bool]]:
    """The caller's grants on the table in its catalog (and on its data cells filters): the link, the columns
    they let it read, and whether Lake Formation decides."""
    lakeformation, subject = request.client("lakeformation"), place.subject
    lake = lf.lake_answers(
        (
            yield lf.lake_calls(
                lakeformation, subject.principal, place.database, place.table, place.catalog_id
            )
        )
    )
    if filtered := lf.filter_calls(lakeformation, lake):
        lake = replace(lake, filter_grants=tuple((yield filtered)))
    found, readable, decides = lf.permissions_link(
        subject, place.database, place.table, columns, place.catalog_id, False, True, lake
    )
    found["resource"] = place.glue_arns[4]
    if found["verdict"] == "denied":
        found["fix"] = [
            lf.grant_fix(
                subject.principal, place.database, place.table, subject.account,
                catalog_id=place.catalog_id,
            )
        ]
    return found, readable.columns if readable is not None else None, decides


def _explain(
    request: ResourceRequest, catalog: str, database: str, table: str
) -> Chain[S3TableAccess]:
    caller, subject = request.caller, Subject.of(request.caller)
    region, account = caller.region, subject.account or "*"
    bucket = str(bucket_of(catalog))
    s3tables, glue = request.client("s3tables"), request.client("glue")
    head = f"arn:{s3tables.meta.partition}:glue:{region}:{account}"
    place = Place(
        subject,
        catalog,
        f"{account}:{catalog}",
        database,
        table,
        f"arn:{s3tables.meta.partition}:s3tables:{region}:{account}:bucket/{bucket}",
        (
            f"{head}:catalog",
            f"{head}:catalog/{S3_TABLES_ROOT}",
            f"{head}:catalog/{catalog}",
            f"{head}:database/{catalog}/{database}",
            f"{head}:table/{catalog}/{database}/{table}",
        ),
    )
    named = {"tableBucketARN": place.bucket_arn, "namespace": database, "name": table}
    checks = WorkgroupChecks.of(request, subject)
    found = yield [
        Call(
            "glue:GetDatabase",
            partial(glue.get_database, CatalogId=place.catalog_id, Name=database),
        ),
        Call(
            "glue:GetTable",
            partial(glue.get_table, CatalogId=place.catalog_id, DatabaseName=database, Name=table),
        ),
        Call(
            "s3tables:GetTableBucket",
            partial(s3tables.get_table_bucket, tableBucketARN=place.bucket_arn),
        ),
        Call(
            "s3tables:GetNamespace",
            partial(s3tables.get_namespace, tableBucketARN=place.bucket_arn, namespace=database),
        ),
        Call("s3tables:GetTable", partial(s3tables.get_table, **named)),
        Call(
            "s3tables:GetTableMetadataLocation",
            partial(s3tables.get_table_metadata_location, **named),
        ),
        Call(
            "s3tables:GetTableBucketPolicy",
            partial(
                _absent_is_none, s3tables.get_table_bucket_policy, tableBucketARN=place.bucket_arn
            ),
        ),
        Call(
            "s3tables:GetTablePolicy", partial(_absent_is_none, s3tables.get_table_policy, **named)
        ),
        Call("s3tables:GetTableBucketEncryption", partial(_encryption, s3tables, place.bucket_arn)),
        *checks.first(),
    ]
    glue_found, probes, policies = found[:2], found[2:6], Policies(found[6], found[7])
    encryption, workgroup_calls = found[8], checks.second(found[9:])
    place = replace(
        place, table_arn=(probes[2].value or {}).get("tableARN") if probes[2].ok else None
    )
    detail = (glue_found[1].value or {}).get("Table") or {}
    columns = [c["Name"] for c in (detail.get("StorageDescriptor") or {}).get("Columns") or []]
    governed = bool(detail.get("IsRegisteredWithLakeFormation"))
    key = _encryption_key(encryption)
    data_arn = place.table_arn or f"{place.bucket_arn}/table/*"
    second: list[Call[Any]] = []
    if subject.principal:
        second.append(
            Call(
                "iam:SimulatePrincipalPolicy",
                partial(
                    _simulate,
                    request.client("iam"),
                    subject.principal,
                    [*GLUE_ACTIONS, *PROBED, DATA, DECRYPT],
                    [*place.glue_arns, place.bucket_arn, data_arn, *([key] if key else [])],
                ),
            )
        )
    if key:
        second.append(Call("kms:GetKeyPolicy", partial(key_policy, request.client("kms"), key)))
    if governed:
        second.append(
            Call("lakeformation:ListPermissions", partial(_lake_formation, request, place, columns))
        )
    answers = yield second + workgroup_calls
    asked = answers[: len(second)]
    simulated = asked.pop(0) if subject.principal else None
    key_read = asked.pop(0) if key else None
    lake = asked.pop(0) if governed else None
    refused = [verdict_of(o) == "denied" for o in probes] + [
        (_decision(simulated, DATA, data_arn) or {}).get("EvalDecision") == "explicitDeny"
    ]
    own = next(iter((yield own_policies(request, subject, any(refused)))), None)  # a refusal only
    workgroup_links = checks.links(answers[len(second) :])
    links = [
        _catalog_link(place, simulated),
        *(
            _glue_link(place, action, outcome)
            for action, outcome in zip(GLUE_ACTIONS[1:], glue_found, strict=True)
        ),
    ]
    decided_by: Governor = "iam"
    read_columns: list[str] | None = columns
    if lake is None:
        links.append(_lake_link(place, glue_found[1]))
    elif lake.value is not None:
        lake_link, read_columns, decides = lake.value
        links.append(lake_link)
        decided_by = "lake_formation" if decides else "iam"
        if decides:
            links.append(checks.data_access_link())
    else:
        links.append(
            link(
                lf.SELECT,
                place.glue_arns[4],
                "unknown",
                answered(lake),
                governed_by="lake_formation",
                settle=unsettled(lake),
            )
        )
        read_columns = None
    links += [
        _probe_link(place, policies, action, outcome, own)
        for action, outcome in zip(PROBED, probes, strict=True)
    ]
    links.append(_simulated_link(place, policies, DATA, data_arn, simulated, own))
    links.append(_decrypt_link(place, encryption, key_read, simulated))
    for entry in links:
        if entry["check"].startswith(("s3tables:", "kms:")):
            entry["governed_by"] = decided_by
    return _answer(request, place, links, workgroup_links, decided_by, read_columns)


def _answer(
    request: ResourceRequest,
    place: Place,
    links: list[Link],
    workgroups: dict[str, list[Link]],
    decided_by: Governor,
    read_columns: list[str] | None,
) -> S3TableAccess:
    """The query verdict: the table's links that bind the caller (S3 Tables' and KMS's are Lake Formation's
    role's where it vends the credentials), with the first workgroup whose links all hold."""
    binding = [
        e
        for e in links
        if not (decided_by == "lake_formation" and e["check"].startswith(("s3tables:", "kms:")))
    ]
    chosen = first_usable(workgroups)
    every = [*binding, *(workgroups[chosen] if chosen else [no_workgroup_link()])]
    verdict = overall(every)
    name = f'"{place.catalog}".{place.database}.{place.table}'
    return S3TableAccess(
        summary=summary(
            verdict,
            every,
            f"SELECT on {name} runs in workgroup {chosen}",
            request.settings.summary_resource_chars,
        ),
        catalog=place.catalog,
        database=place.database,
        table=place.table,
        table_bucket_arn=place.bucket_arn,
        table_arn=place.table_arn,
        principal_arn=request.caller.principal_arn,
        simulated_as=place.subject.principal,
        query=verdict,
        workgroup=chosen,
        decided_by=decided_by,
        read_columns=None if verdict == "denied" else read_columns,
        links=links,
        workgroups=workgroups,
        unseen=unseen_from_the_callers_seat(),
    )


def explain_s3_table(request: ResourceRequest) -> S3TableAccess:
    catalog, database, table = (request.args[k] for k in ("catalog", "database", "table"))
    outcome = request.fan_out(
        Call.run,
        [Call("glue:GetTable", partial(_explain, request, catalog, database, table))],
        action=Call.action_of,
    )[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]
