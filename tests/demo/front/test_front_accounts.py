"""The demo's three accounts through both hosted fronts: iam (each caller's SigV4-signed role session, from the
profiles the demo wrote) and oidc (each caller's bearer token), over both protocol revisions.

The demo's account map: alice reaches home and lake, bob all three, carol home alone. An account whose role the
caller's trust does not admit is refused by that account's STS, and only that account says so.
"""

from __future__ import annotations

import asyncio
import configparser
import itertools
import json
import random
import re
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from support.events import REVISION_2025, REVISION_2026, modern, rpc

HOME, LAKE, SANDBOX = "123456789012", "111122223333", "444455556666"
IDS = {"home": HOME, "lake": LAKE, "sandbox": SANDBOX}
DATABASES = {"home": {"sales", "marketing", "ml_features", "enterprise", "lakehouse"},
             "lake": {"finance"}, "sandbox": {"scratch"}}
ROLES = {"alice": "demo-analyst-role", "bob": "demo-admin-role", "carol": "demo-contractor-role"}
REACH = {"alice": {"home", "lake"}, "bob": {"home", "lake", "sandbox"}, "carol": {"home"}}


@dataclass(frozen=True)
class Front:
    """One hosted demo, and how each caller authenticates to it."""

    mode: str
    url: str
    credentials: dict[str, Credentials | str]
    """iam: the caller's role session; oidc: their bearer token."""

    def headers(self, who: str, body: bytes, extra: dict[str, str]) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", **extra}
        credential = self.credentials[who]
        if isinstance(credential, str):
            return {**headers, "authorization": f"Bearer {credential}"}
        request = AWSRequest(method="POST", url=self.url, data=body, headers=headers)
        SigV4Auth(credential, "execute-api", "us-east-1").add_auth(request)
        return dict(request.headers.items())

    async def read(self, http: httpx2.AsyncClient, who: str, uri: str, revision: str = REVISION_2025) -> Any:
        """The answer to resources/read of `uri` as `who`: the resource's JSON, or the error's data."""
        if revision == REVISION_2026:
            body, extra = modern("resources/read", {"uri": uri}), {"mcp-method": "resources/read", "mcp-name": uri}
        else:
            body, extra = rpc("resources/read", {"uri": uri}), {}
        raw = json.dumps(body).encode()
        answer = await http.post(self.url, content=raw,
                                 headers=self.headers(who, raw, {"mcp-protocol-version": revision, **extra}))
        assert answer.status_code == 200, (self.mode, who, uri, answer.status_code, answer.text[:300])
        reply = answer.json()
        return reply["error"]["data"] if "error" in reply else json.loads(reply["result"]["contents"][0]["text"])


def _iam_front(url: str, banner: str) -> Front:
    credentials = configparser.ConfigParser()
    credentials.read(re.search(r"AWS_SHARED_CREDENTIALS_FILE=(\S+)", banner)[1])  # type: ignore[index]
    return Front("iam", url, {who: Credentials(credentials[f"demo-{who}"]["aws_access_key_id"],
                                                credentials[f"demo-{who}"]["aws_secret_access_key"],
                                                credentials[f"demo-{who}"]["aws_session_token"]) for who in ROLES})


@pytest.fixture(scope="module")
def fronts(iam_demo: tuple[str, str], oidc_demo: tuple[str, dict[str, str]]) -> dict[str, Front]:
    return {"iam": _iam_front(*iam_demo), "oidc": Front("oidc", oidc_demo[0], dict(oidc_demo[1]))}


def run(*reads: Any) -> list[Any]:
    async def gather() -> list[Any]:
        async with httpx2.AsyncClient(timeout=30) as http:
            return list(await asyncio.gather(*(read(http) for read in reads)))
    return asyncio.run(gather())


def _session(who: str, account: str) -> str:
    return f"arn:aws:sts::{IDS[account]}:assumed-role/{ROLES[who]}/{who}"


def test_the_banners_name_the_accounts_and_who_reaches_which(iam_demo: tuple[str, str]) -> None:
    line = next(line for line in iam_demo[1].splitlines() if line.startswith("Accounts: "))
    assert f"home {HOME}, lake {LAKE}, sandbox {SANDBOX}" in line and "?account=lake" in line
    assert "alice reaches home+lake, bob reaches home+lake+sandbox, carol reaches home" in line


@pytest.mark.parametrize("mode", ["iam", "oidc"])
def test_each_account_answers_its_own_data_as_the_caller(fronts: dict[str, Front], mode: str) -> None:
    front = fronts[mode]
    answers = run(*(lambda http, name=name: front.read(http, "bob", f"athena://databases?account={name}")
                    for name in IDS),
                  lambda http: front.read(http, "bob", "athena://databases/finance/tables/invoices?account=lake",
                                          REVISION_2026))
    for name, answer in zip(IDS, answers, strict=False):
        assert {d["name"] for d in answer["databases"]} == DATABASES[name], (mode, name)
        assert answer["from_account"] == {"name": name, "id": IDS[name], "principal_arn": _session("bob", name)}
    invoices = answers[-1]
    assert [c["name"] for c in invoices["columns"]][:2] == ["invoice_id", "customer_id"]
    assert invoices["location"] == "s3://acme-finance-lake/finance/invoices/"


@pytest.mark.parametrize("mode", ["iam", "oidc"])
def test_star_answers_every_account_the_caller_reaches_and_each_refusal_apart(
        fronts: dict[str, Front], mode: str) -> None:
    front = fronts[mode]
    alice, bob, carol, carol_status = run(
        lambda http: front.read(http, "alice", "athena://databases?account=*"),
        lambda http: front.read(http, "bob", "athena://databases?account=*", REVISION_2026),
        lambda http: front.read(http, "carol", "permissions://discover?account=*"),
        lambda http: front.read(http, "carol", "auth://status"))
    assert {(d["account"], d["name"]) for d in bob["databases"]} == \
        {(name, database) for name, names in DATABASES.items() for database in names}
    assert {a["name"]: a["count"] for a in bob["accounts"]} == {"home": 5, "lake": 1, "sandbox": 1}
    assert {d["account"] for d in alice["databases"]} == {"home", "lake"}
    assert {a["name"]: a.get("error", {}).get("error") for a in alice["accounts"]} == \
        {"home": None, "lake": None, "sandbox": "authentication_required"}
    assert {b["account"] for b in carol["buckets"]} == {"home"}  # carol: one account, her one bucket there
    assert {a["name"]: a.get("error", {}).get("error") for a in carol["accounts"]} == \
        {"home": None, "lake": "authentication_required", "sandbox": "authentication_required"}
    assert {a["name"]: a["reachable"] for a in carol_status["accounts"]} == \
        {"home": True, "lake": False, "sandbox": False}


@pytest.mark.parametrize("mode", ["iam", "oidc"])
def test_an_account_whose_trust_does_not_admit_the_caller_refuses_alone(fronts: dict[str, Front], mode: str) -> None:
    front = fronts[mode]
    carol_lake, alice_sandbox, alice_lake = run(
        lambda http: front.read(http, "carol", "athena://workgroups?account=lake"),
        lambda http: front.read(http, "alice", "athena://databases?account=sandbox"),
        lambda http: front.read(http, "alice", "athena://databases?account=lake"))
    for refused, account, role in ((carol_lake, "lake", "demo-contractor-role"),
                                   (alice_sandbox, "sandbox", "demo-analyst-role")):
        assert refused["error"] == "authentication_required", refused
        assert f"account {account} does not admit this caller as role {role} (" in refused["message"]
        assert IDS[account] not in refused["message"]  # the role's name, not the account's id (docs/accounts.md)
    assert {d["name"] for d in alice_lake["databases"]} == {"finance"}  # the same caller, an account that admits


def test_300_interleaved_reads_leak_nothing_between_callers_accounts_or_fronts(fronts: dict[str, Front]) -> None:
    """Three callers over three accounts through both fronts and both revisions, 300 reads at once (8 in flight):
    each answer is its account's, as its caller, or that account's refusal."""
    plan = list(itertools.product(fronts, ROLES, IDS, (REVISION_2025, REVISION_2026))) * 9
    random.Random(26).shuffle(plan)
    plan = plan[:300]
    limit = asyncio.Semaphore(8)

    def reading(mode: str, who: str, name: str, revision: str, uri: str) -> Any:
        async def read(http: httpx2.AsyncClient) -> Any:
            async with limit:
                return await fronts[mode].read(http, who, uri, revision)
        return read

    uris = ["auth://status?account={}", "athena://databases?account={}"]
    answers = run(*(reading(*step, uris[index % 2].format(step[2])) for index, step in enumerate(plan)))
    digests: dict[tuple[str, str, str], set[str]] = {}
    for index, ((mode, who, name, _), answer) in enumerate(zip(plan, answers, strict=True)):
        where = (mode, who, name)
        if name not in REACH[who]:  # auth://status says who they are not there; a read is refused
            refusal = answer["reason"] if index % 2 == 0 else answer["message"]
            assert answer.get("authenticated", False) is False and answer.get("principal_arn") is None, where
            assert f"account {name} does not admit this caller" in refusal, (where, refusal)
        elif index % 2 == 0:
            assert (answer["principal_arn"], answer["account"]) == (_session(who, name), IDS[name]), where
            digests.setdefault(where, set()).add(answer["identity_digest"])
        else:
            assert {d["name"] for d in answer["databases"]} == DATABASES[name], where
            assert answer.get("from_account", {}).get("principal_arn") == _session(who, name), where
    assert all(len(seen) == 1 for seen in digests.values()), digests  # one identity per caller, account, front
    assert len(set().union(*digests.values())) == len(digests)  # and each its own cache key
