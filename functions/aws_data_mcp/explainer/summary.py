"""The one line an explainer answer opens with: its verdict, the first link that decides it and who fixes it, so a
reader (or an agent) need not walk the links to know what to do.

"denied: kms:Decrypt on alias/acme-campaign-budgets (arn:aws:kms:us-east-1:123456789012:key/6aed3499-...) (key
policy) — fix by an administrator: add a key-policy statement". Ids and ARNs are whole (a KMS key by its alias
where it has one, beside its ARN): a reader copies them into a command. Only an operator's setting
(AWS_DATA_MCP_SUMMARY_RESOURCE_CHARS) cuts them, and then says so with "…".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from aws_data_mcp.explainer.model import Fix, Link, Verdict

WHERE = {"key_policy": "key policy", "bucket_policy": "bucket policy", "identity_policy": "identity policy",
         "group_policy": "group policy", "permissions_boundary": "permissions boundary",
         "lake_formation_grant": "Lake Formation", "workgroup": "workgroup"}


def _named(entry: Link, chars: int) -> str:
    """The link's resource as the line names it: whole (a KMS key's alias first, where it has one); cut to its last
    `chars` characters only where the operator set a limit (0: no limit)."""
    resource = entry["resource"]
    if chars and len(resource) > chars:
        resource = "…" + resource[-chars:]
    alias = (entry.get("evidence") or {}).get("key_alias")
    return f"{alias} ({resource})" if alias else resource


def _remedy(fix: Fix) -> str:
    """What the first fix does, in a few words."""
    kind, narrows = fix["kind"], "removes" in fix or "narrows" in fix
    if kind == "key_policy":
        return "exempt the caller from the key policy's Deny" if narrows else "add a key-policy statement"
    if kind == "bucket_policy":
        return "exempt the caller from the bucket policy's Deny" if narrows else "add a bucket-policy statement"
    if kind == "identity_policy":
        if "policy" in fix:
            return f"narrow the Deny in {fix.get('policy_name', 'the identity policy')}"
        return "add an identity-policy statement"
    if kind == "group_policy":
        return "exempt the caller from the group policy's Deny"
    if kind == "permissions_boundary":
        return "exempt the caller from the boundary's Deny" if narrows else "allow it in the permissions boundary"
    if kind == "lake_formation_grant":
        return "grant it in Lake Formation"
    if "ExpectedBucketOwner" in fix["command"]:
        return "name the results bucket's owner in the workgroup (ExpectedBucketOwner)"
    return "set the workgroup up for this server"


def _where(entry: Link) -> str:
    if entry.get("refused_by") == "server":
        return "this server's rule"
    fixes = entry.get("fix") or []
    return WHERE.get(fixes[0]["kind"], fixes[0]["kind"]) if fixes else (
        "Lake Formation" if entry["governed_by"] == "lake_formation" else "IAM")


def deciding(verdict: Verdict, links: Iterable[Link]) -> Link | None:
    """The first link whose verdict is the answer's (a denied one for denied, an unknown one for unknown)."""
    return next((entry for entry in links if entry["verdict"] == verdict), None) if verdict != "allowed" else None


def summary(verdict: Verdict, links: Sequence[Link], allowed: str, chars: int = 0) -> str:
    """The answer's first line: `allowed` (what runs) where every link holds, else the deciding link (its resource
    cut to `chars`, the operator's AWS_DATA_MCP_SUMMARY_RESOURCE_CHARS, where that is set)."""
    entry = deciding(verdict, links)
    if entry is None:
        return f"allowed: {allowed}"
    line = f"{verdict}: {entry['check']} on {_named(entry, chars)} ({_where(entry)})"
    if verdict == "denied":
        fixes = entry.get("fix") or []
        if fixes:
            who = "you" if fixes[0]["apply_by"] == "caller" else "an administrator" + (
                f" of account {fixes[0]['account']}" if fixes[0].get("account") else "")
            line += f" — fix by {who}: {_remedy(fixes[0])}"
        elif entry.get("evidence", {}).get("reason"):
            line += f" — {entry['evidence']['reason']}"
    else:
        settle = entry.get("settle") or ""
        line += f" — to settle: {settle.split(': ')[0][:120]}" if settle else ""
    return line
