"""The user pool's pre-token-generation trigger (event version V2_0): the role tag STS reads.

Cognito writes no tags claim, so this trigger adds OidcRoleTag to the access token.
Its value is the user's group. A user in no group gets none: the default role.
A session tag holds one value, so a user in several groups gets no token.
"""

from __future__ import annotations

import os
from typing import Any

TAGS_CLAIM = "https://aws.amazon.com/tags"


class SeveralGroups(Exception):
    """Cognito fails the sign-in with this message: the user's groups would select more than one role."""


def role_tag_claims(groups: list[str], tag: str) -> dict[str, Any]:
    """The claims to add to the access token for a user in `groups`."""
    if not groups:
        return {}
    if len(groups) > 1:
        raise SeveralGroups(f"this user is in {len(groups)} groups, and the group names the role: put each user in "
                            "one group at most")
    return {TAGS_CLAIM: {"principal_tags": {tag: [groups[0]]}}}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Cognito's V2_0 event in, the same event with the access token's added claims out."""
    configuration = event.get("request", {}).get("groupConfiguration") or {}
    groups = [str(group) for group in configuration.get("groupsToOverride") or []]
    claims = role_tag_claims(groups, os.environ["AWS_DATA_MCP_OIDC_ROLE_TAG"])
    event["response"] = {"claimsAndScopeOverrideDetails": {"accessTokenGeneration": {"claimsToAddOrOverride": claims}}
                         if claims else None}
    return event
