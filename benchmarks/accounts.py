"""`?account=*` over three accounts under an injected 50 ms per AWS call vs one account's read of the same view
: run by `worker.py accounts` in a fresh process.

moto's server runs in a process of its own (as for `fanout`) and holds three accounts (moto keeps one per id, and a
key acts in the account that issued it), each with `DATABASES` Glue databases of `TABLES` tables named after it.
The caller is an IAM user of the home account reaching the others as themselves, through a role there (local
mode's ACCOUNT_ROLE). Every AWS attempt, the member accounts' included, waits 50 ms before reaching moto
(`fanout.FarAwayEndpoint`, which replays each distinct request's answer). The caller's role sessions are made once
before timing (they are cached until they near expiry, as in a warm process) and the result cache is off, so each
timed read makes every call of its view. Turns alternate: `athena://databases?account=*`, the home account's
`athena://databases`, and the lake account's `athena://databases?account=lake`.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import fanout

ACCOUNTS = {"home": "123456789012", "lake": "111122223333", "sandbox": "444455556666"}
DATABASES = 10
TABLES = 5
ROLE = "bench-reader"
VARIANTS = {"all": "athena://databases?account=*", "home": "athena://databases",
            "lake": "athena://databases?account=lake"}
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["athena:*", "glue:*", "sts:AssumeRole"], "Resource": "*"}]})


def _seed(endpoint: str) -> dict[str, str]:
    """Each account's catalog and reader role; returns the home caller's key."""
    import boto3

    home = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=fanout.REGION)
    sts = home.client("sts", endpoint_url=endpoint)
    for name, number in ACCOUNTS.items():
        session = home
        if name != "home":  # moto's STS issues keys acting in the role's account (the role need not exist yet)
            issued = sts.assume_role(RoleArn=f"arn:aws:iam::{number}:role/seed", RoleSessionName="seed")["Credentials"]
            session = boto3.Session(aws_access_key_id=issued["AccessKeyId"], region_name=fanout.REGION,
                                    aws_secret_access_key=issued["SecretAccessKey"],
                                    aws_session_token=issued["SessionToken"])
            iam = session.client("iam", endpoint_url=endpoint)
            iam.create_role(RoleName=ROLE, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNTS['home']}:user/bench-caller"},
                 "Action": "sts:AssumeRole"}]}))
            iam.put_role_policy(RoleName=ROLE, PolicyName="read", PolicyDocument=POLICY)
        glue = session.client("glue", endpoint_url=endpoint)
        for index in range(DATABASES):
            database = f"{name}_db_{index:02d}"
            glue.create_database(DatabaseInput={"Name": database})
            for table in range(TABLES):
                glue.create_table(DatabaseName=database, TableInput={"Name": f"t_{table:02d}", "StorageDescriptor": {
                    "Location": f"s3://{name}-bucket/{database}/t_{table:02d}/"}})
    iam = home.client("iam", endpoint_url=endpoint)
    iam.create_user(UserName="bench-caller")
    iam.put_user_policy(UserName="bench-caller", PolicyName="read", PolicyDocument=POLICY)
    key = iam.create_access_key(UserName="bench-caller")["AccessKey"]
    return {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}


def _checked(uri: str, text: str) -> None:
    answer = json.loads(text)
    expected = {name: DATABASES for name in ACCOUNTS} if uri.endswith("*") else None
    if expected is not None and {a["name"]: a.get("count") for a in answer["accounts"]} != expected:
        raise AssertionError(f"{uri} did not read every account: {answer['accounts']}")
    if expected is None and len(answer["databases"]) != DATABASES:
        raise AssertionError(f"{uri} answered {text[:300]}")


def measure(repeats: int) -> dict[str, Any]:
    import anyio

    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.hosted import exchange
    from aws_data_mcp.identity.resolve import local_chain

    server, endpoint = fanout._start_moto()
    try:
        os.environ.update(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                          AWS_DEFAULT_REGION=fanout.REGION, AWS_REGION=fanout.REGION)
        os.environ.update(_seed(endpoint))
        settings = Settings(mode="local", cache_ttl_seconds=0, region=fanout.REGION,
                            accounts=tuple(ACCOUNTS.items()), account_role=ROLE)
        mcp = create_server(settings)
        far_away = fanout.FarAwayEndpoint()
        local_chain.reset()
        local_chain.session().events.register("before-send", far_away)
        made = exchange._session_of

        def far_away_too(credentials: Any, region: str) -> Any:
            """The caller's session in a member account: its calls wait as the home session's do."""
            session = made(credentials, region)
            session.events.register("before-send", far_away)
            return session

        exchange._session_of = far_away_too
        for uri in VARIANTS.values():  # the caller's role sessions, and moto's answers to replay
            _checked(uri, anyio.run(mcp.read, uri, None).text)
        walls: dict[str, list[float]] = {name: [] for name in VARIANTS}
        calls: dict[str, int] = {}
        names = list(VARIANTS)
        for turn in range(repeats):
            for name in names[turn % len(names):] + names[:turn % len(names)]:
                far_away.calls.clear()
                started = time.perf_counter()
                text = anyio.run(mcp.read, VARIANTS[name], None).text
                walls[name].append(time.perf_counter() - started)
                calls[name] = sum(far_away.calls.values())
                _checked(VARIANTS[name], text)
        return {"delay_s": fanout.DELAY, "accounts": len(ACCOUNTS), "databases": DATABASES, "tables": TABLES,
                "uris": VARIANTS, "wall_s": {name: sorted(values) for name, values in walls.items()},
                "calls": calls}
    finally:
        server.kill()
