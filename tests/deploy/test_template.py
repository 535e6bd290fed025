"""Static checks of the SAM application: template.yaml, samconfig.toml and the layer build.

What a reviewer of the deployment looks for, as tests: the template lints clean, the
function cannot read caller data with its own role, the runtime/timeout/SnapStart settings
match the contract, the workflow table has TTL, and the layer is built for the Lambda platform
(never the host's). No `sam build` here: these run in a few seconds without network.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from cfnlint.api import ManualArgs, lint_file
from cfnlint.decode import decode
from cfnlint.helpers import REGIONS
from template_rules import deploy_refusals

from aws_data_mcp.workflows.table import TABLE_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
SAMCONFIG = ROOT / "samconfig.toml"
LAYERS = ROOT / "layers"

ALLOWED_ROLE_ACTIONS = {
    "sts:AssumeRole",
    "sts:AssumeRoleWithWebIdentity",
    "sts:SetSourceIdentity",
    "sts:TagSession",
}
# Services holding caller data (or able to grant access to it): the function role must
# never be able to call them; every such call runs under the caller's credentials.
FORBIDDEN_PREFIXES = (
    "s3:",
    "athena:",
    "glue:",
    "iam:",
    "lakeformation:",
    "sso:",
    "sso-admin:",
    "identitystore:",
    "kms:",
)
# SAM policy templates the function may use, and the resource each must be scoped to.
ALLOWED_POLICY_TEMPLATES: dict[str, Any] = {}
WORKFLOW_STORE_ACTIONS = set(TABLE_ACTIONS)
"""Exactly what the workflow store calls, on its table alone."""


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    tpl, matches = decode(str(TEMPLATE))
    assert not matches, [str(m) for m in matches]
    assert tpl is not None
    return tpl


@pytest.fixture(scope="module")
def resources(template: dict[str, Any]) -> dict[str, Any]:
    return template["Resources"]


@pytest.fixture(scope="module")
def function(resources: dict[str, Any]) -> dict[str, Any]:
    functions = {k: v for k, v in resources.items() if v["Type"] == "AWS::Serverless::Function"}
    always = [name for name, function in functions.items() if "Condition" not in function]
    assert always == ["McpFunction"], "exactly one function in every stack, McpFunction"
    # IdentityProvider=cognito: registration, the sign-in facade and the pool's trigger (test_template_cognito)
    assert {name: f["Condition"] for name, f in functions.items() if name != "McpFunction"} == {
        "RegistrationFunction": "IsCognito", "SignInFunction": "IsCognito", "RoleTagFunction": "IsCognito"}
    return functions["McpFunction"]["Properties"]


@pytest.fixture(scope="module")
def layer(resources: dict[str, Any]) -> dict[str, Any]:
    return resources["DependenciesLayer"]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


# --- lint -------------------------------------------------------------------------------


def one_region_per_partition() -> list[str]:
    """cfn-lint's first region of each partition (aws, aws-cn, aws-us-gov, the isolated ones...): what differs
    between regions (resource types, properties, service principals) differs first of all between partitions."""
    partition_of = botocore.session.get_session().get_partition_for_region
    firsts: dict[str, str] = {}
    for region in REGIONS:
        firsts.setdefault(partition_of(region), region)
    return list(firsts.values())


def test_cfn_lint_is_clean_in_one_region_of_every_partition() -> None:
    # Same rules as the `cfn-lint template.yaml` CLI, plus informational ones; `make lint` lints every region.
    matches = lint_file(TEMPLATE, config=ManualArgs(include_checks=["I"], regions=one_region_per_partition()))
    assert matches == [], "\n".join(str(m) for m in matches)


# --- the function -------------------------------------------------------------------------


def test_runtime_is_snapstart_capable_python(function: dict[str, Any]) -> None:
    m = re.fullmatch(r"python3\.(\d+)", function["Runtime"])
    assert m and int(m.group(1)) >= 12, f"SnapStart for Python needs python3.12+, got {function['Runtime']}"
    assert function["Handler"] == "aws_data_mcp.handler.lambda_handler"
    assert function["CodeUri"].rstrip("/") == "functions"


def test_timeout_is_below_api_gateway_limit(function: dict[str, Any]) -> None:
    assert isinstance(function["Timeout"], int)
    assert function["Timeout"] < 30, "API Gateway gives up at 30 s; the function must answer before"


def test_snapstart_on_published_versions_behind_an_alias(function: dict[str, Any]) -> None:
    assert function["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert function["AutoPublishAlias"] == "live", "events must target a published version (SnapStart)"
    assert function.get("AutoPublishAliasAllProperties") is True
    # Parameter-only changes must still publish a new version (see template comment).
    description = function["VersionDescription"]["Fn::Sub"]
    for param in ("AuthMode", "Architecture", "MemorySize"):
        assert f"${{{param}}}" in description


def test_no_bypass_of_api_gateway(function: dict[str, Any]) -> None:
    assert "FunctionUrlConfig" not in function, "a function URL would bypass API Gateway authorization"


def test_environment(function: dict[str, Any]) -> None:
    env = function["Environment"]["Variables"]
    assert env["AWS_DATA_MCP_MODE"] == "lambda"
    assert env["AWS_DATA_MCP_AUTH_MODE"] == {"Ref": "AuthMode"}
    assert env["AWS_DATA_MCP_WORKFLOW_TABLE"] == {"Ref": "WorkflowTable"}
    assert env["POWERTOOLS_SERVICE_NAME"] == "aws-data-mcp"
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == "AwsDataMcp"
    assert env["POWERTOOLS_LOG_LEVEL"] == "INFO"
    # No secrets in configuration.
    assert not [k for k in env if re.search(r"SECRET|TOKEN|PASSWORD|ACCESS_KEY", k)]


def test_auth_mode_parameter(template: dict[str, Any]) -> None:
    auth = template["Parameters"]["AuthMode"]
    assert set(auth["AllowedValues"]) == {"iam", "oidc"}
    assert auth["Default"] == "iam"
    for name in ("OidcIssuer", "OidcAudience", "OidcRoleArn", "OidcRoleClaim", "OidcRoleMap", "PrincipalRoleMap"):
        assert name in template["Parameters"]


def test_session_duration_says_iam_gets_at_most_an_hour(template: dict[str, Any]) -> None:
    """oidc sessions may last up to 12 h; iam's AssumeRole is role chaining, which AWS caps at 1 h (the code asks
    for no more): the parameter must not promise iam callers what AWS refuses."""
    param = template["Parameters"]["SessionDurationSeconds"]
    assert (param["MinValue"], param["MaxValue"], param["Default"]) == (900, 43200, 3600)
    assert "at most 3600" in param["Description"] and "role chaining" in param["Description"]


OIDC_READY = {"AuthMode": "oidc", "OidcIssuer": "https://login.example.com", "OidcAudience": "aws-data-mcp",
              "OidcRoleArn": "arn:aws:iam::111122223333:role/DataAnalyst"}


@pytest.mark.parametrize(("given", "missing"), [
    ({"CallerRoleArnPattern": "arn:aws:iam::111122223333:role/data-*"}, []),  # iam needs none of them
    (OIDC_READY, []),
    (OIDC_READY | {"OidcRoleArn": "", "OidcRoleMap": '{"admins": "arn:aws:iam::111122223333:role/Admin"}'}, []),
    (OIDC_READY | {"OidcIssuer": ""}, ["OidcIssuer"]),
    (OIDC_READY | {"OidcAudience": ""}, ["OidcAudience"]),
    (OIDC_READY | {"OidcRoleArn": ""}, ["OidcRoleArn or OidcRoleMap"]),
    ({"AuthMode": "oidc"}, ["OidcIssuer", "OidcAudience", "OidcRoleArn or OidcRoleMap"]),
])
def test_an_oidc_stack_without_issuer_audience_or_role_is_refused_at_deploy(
    template: dict[str, Any], given: dict[str, str], missing: list[str]
) -> None:
    refusals = deploy_refusals(template, **given)
    assert len(refusals) == len(missing)
    for refusal, name in zip(refusals, missing, strict=True):
        assert f"needs {name} " in refusal


def _statements(policy: dict[str, Any]) -> list[dict[str, Any]]:
    """Both branches of a statement list chosen by `!If [IsIam, [...], [...]]`."""
    chosen = policy["Statement"]
    if isinstance(chosen, dict) and "Fn::If" in chosen:
        condition, when_true, when_false = chosen["Fn::If"]
        assert condition == "IsIam"
        return [*_tagging(_as_list(when_true)), *_as_list(when_false)]
    return _as_list(chosen)


def _tagging(statements: list[Any]) -> list[dict[str, Any]]:
    """The iam branch's statements, with the one `!If [TagsSessions, ...]` adds (SessionTags=true) taken as there."""
    found = []
    for statement in statements:
        if isinstance(statement, dict) and "Fn::If" in statement:
            condition, when_true, when_false = statement["Fn::If"]
            assert condition == "TagsSessions" and when_false == {"Ref": "AWS::NoValue"}
            statement = when_true
        found.append(statement)
    return found


def test_function_role_cannot_read_caller_data(function: dict[str, Any], resources: dict[str, Any]) -> None:
    assert "Role" not in function, "a custom role would bypass the reviewed Policies below"
    policies = _as_list(function["Policies"])
    seen_templates = set()
    allows = []
    for policy in policies:
        assert isinstance(policy, dict), f"managed policy {policy!r}: only inline statements and scoped templates"
        if "Statement" not in policy:
            (name, args), *rest = policy.items()
            assert not rest
            assert name in ALLOWED_POLICY_TEMPLATES, f"unexpected SAM policy template {name}"
            assert args == ALLOWED_POLICY_TEMPLATES[name], f"{name} must be scoped to the workflow table"
            seen_templates.add(name)
            continue
        for statement in _statements(policy):
            assert "NotAction" not in statement and "NotResource" not in statement
            actions = set(_as_list(statement["Action"]))
            if statement.get("Sid") == "WorkflowStore":  # exactly what the store calls, on its table alone
                assert actions == WORKFLOW_STORE_ACTIONS and statement["Effect"] == "Allow"
                assert statement["Resource"] == {"Fn::GetAtt": ["WorkflowTable", "Arn"]}
                continue
            assert actions <= ALLOWED_ROLE_ACTIONS, f"unexpected actions {actions - ALLOWED_ROLE_ACTIONS}"
            for action in actions:
                assert not action.lower().startswith(FORBIDDEN_PREFIXES)
                assert "*" not in action
            if statement["Effect"] == "Allow":
                allows.append(statement)
            else:  # the oidc branch: the function's credentials assume no role at all
                assert statement["Effect"] == "Deny" and statement["Resource"] == "*"
    # iam: exactly what the mode calls (no AssumeRoleWithWebIdentity: an identity grant of it does nothing;
    # TagSession only where SessionTags asks the exchange to pass session tags), on the operator's pattern alone.
    allow, tagging = allows
    assert set(_as_list(allow["Action"])) == {"sts:AssumeRole", "sts:SetSourceIdentity"}
    assert _as_list(tagging["Action"]) == ["sts:TagSession"]
    for granted in (allow, tagging):
        assert granted["Resource"] == {"Ref": "CallerRoleArnPattern"}, "only the operator's pattern: no default"
    assert seen_templates == set()
    assert resources["WorkflowTable"]["Type"] == "AWS::DynamoDB::Table"


def test_caller_role_pattern_parameter(template: dict[str, Any]) -> None:
    param = template["Parameters"]["CallerRoleArnPattern"]
    assert param["Type"] == "CommaDelimitedList"
    assert param["Default"] == ""
    assert "trust policy" in param["Description"] and "account root" in param["Description"]


def _routes(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["Properties"]["RouteKey"]: r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Route"}


def test_every_mcp_route_needs_a_caller_api_gateway_verified(resources: dict[str, Any]) -> None:
    routes = _routes(resources)
    assert {key for key in routes if key.endswith(" /mcp")} == {"POST /mcp", "GET /mcp", "DELETE /mcp"}
    for key, route in routes.items():
        props = route["Properties"]
        assert props["ApiId"] == {"Ref": "HttpApi"}
        assert props["Target"] == {"Fn::Sub": "integrations/${McpIntegration}"}
        if key.endswith(" /mcp"):
            assert props["AuthorizationType"] == {"Fn::If": ["IsOidc", "JWT", "AWS_IAM"]}
            assert "Condition" not in route
        elif key.startswith("GET /.well-known/oauth-protected-resource"):  # the oidc mode's RFC 9728 metadata
            assert props["AuthorizationType"] == "NONE" and route["Condition"] == "IsOidc"
        else:  # the Cognito pool's RFC 8414 metadata: nothing else is public
            assert key == "GET /.well-known/oauth-authorization-server"
            assert props["AuthorizationType"] == "NONE" and route["Condition"] == "IsCognito"
    authorizer = resources["OidcAuthorizer"]
    assert authorizer["Condition"] == "IsOidc" and authorizer["Properties"]["AuthorizerType"] == "JWT"
    jwt = authorizer["Properties"]["JwtConfiguration"]
    ((condition, _, external_issuer),) = jwt["Issuer"].values()
    ((audience,),) = [[value["Fn::If"]] for value in jwt["Audience"]]
    assert condition == "IsCognito" and external_issuer == {"Ref": "OidcIssuer"}  # the pool's: test_template_cognito
    assert audience[0] == "IsCognito" and audience[2] == {"Ref": "OidcAudience"}
    assert resources["HttpApi"]["Properties"]["StageName"] == {"Ref": "Stage"}


def test_only_this_api_may_invoke_the_function(function: dict[str, Any], resources: dict[str, Any]) -> None:
    """The defence against a forged requestContext is who may invoke: the resource policy admits only this API.
    The API id check (AWS_DATA_MCP_API_ID) refuses events meant for another API, not forgeries: the id is public."""
    permissions = {name: r for name, r in resources.items() if r["Type"] == "AWS::Lambda::Permission"}
    # and the Cognito pool its own trigger only (IdentityProvider=cognito: tests/deploy/test_template_cognito.py)
    assert set(permissions) == {"ApiInvokesFunction", "PoolInvokesRoleTagFunction"}
    permission = permissions["ApiInvokesFunction"]["Properties"]
    assert permission["FunctionName"] == {"Ref": "McpFunctionAliaslive"}
    assert permission["Principal"] == "apigateway.amazonaws.com"
    assert "${HttpApi}/*" in permission["SourceArn"]["Fn::Sub"]
    assert "Events" not in function  # routes are declared explicitly, with conditional authorizers
    assert function["Environment"]["Variables"]["AWS_DATA_MCP_API_ID"] == {"Ref": "HttpApi"}
    assert function["Environment"]["Variables"]["AWS_DATA_MCP_API_STAGE"] == {"Ref": "Stage"}


def test_logs_have_retention(function: dict[str, Any], resources: dict[str, Any]) -> None:
    log_group = function["LoggingConfig"]["LogGroup"]["Ref"]
    assert resources[log_group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}
    access_logs = resources["HttpApi"]["Properties"]["AccessLogSettings"]
    assert "header" not in access_logs["Format"].lower(), "access logs must not capture headers (tokens)"


# --- the workflow table -------------------------------------------------------------------


def test_workflow_table(resources: dict[str, Any]) -> None:
    props = resources["WorkflowTable"]["Properties"]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert props["SSESpecification"]["SSEEnabled"] is True
    keys = {k["AttributeName"]: k["KeyType"] for k in props["KeySchema"]}
    assert keys == {"pk": "HASH", "sk": "RANGE"}
    types = {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]}
    assert types == {"pk": "S", "sk": "S"}


# --- outputs --------------------------------------------------------------------------------


HOST = "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"


def _by_stage(value: dict[str, Any]) -> tuple[str, str]:
    """An output's URL for the $default stage and for a named one (`!If [IsDefaultStage, ...]`)."""
    condition, default, named = value["Fn::If"]
    assert condition == "IsDefaultStage"
    return default["Fn::Sub"], named["Fn::Sub"]


def test_outputs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert {"McpUrl", "HttpApiId", "FunctionAliasArn", "FunctionRoleArn", "WorkflowTableName"} <= set(outputs)
    assert _by_stage(outputs["McpUrl"]["Value"]) == (f"{HOST}/mcp", f"{HOST}/${{Stage}}/mcp")
    assert outputs["FunctionAliasArn"]["Value"] == {"Ref": "McpFunctionAliaslive"}
    assert outputs["FunctionRoleArn"]["Value"] == {"Fn::GetAtt": ["McpFunctionRole", "Arn"]}


def test_protected_resource_metadata_url_is_where_clients_look_on_the_default_stage(template: dict[str, Any]) -> None:
    """RFC 9728: the metadata of https://host/mcp is at https://host/.well-known/oauth-protected-resource/mcp,
    which only the $default stage serves; a named stage serves it under /<Stage> (the output says so)."""
    output = template["Outputs"]["ProtectedResourceMetadataUrl"]
    assert output["Condition"] == "IsOidc"
    default, named = _by_stage(output["Value"])
    assert default == f"{HOST}/.well-known/oauth-protected-resource/mcp"
    assert named == f"{HOST}/${{Stage}}/.well-known/oauth-protected-resource/mcp"
    assert "named stage" in output["Description"]


# --- the stage ---------------------------------------------------------------------------------


def _java_full_match(pattern: str, value: str) -> bool:
    """CloudFormation matches AllowedPattern against the whole value; this pattern is Python-compatible."""
    return re.fullmatch(pattern, value) is not None


def test_stage_defaults_to_default_so_the_well_known_fallback_works(template: dict[str, Any]) -> None:
    stage = template["Parameters"]["Stage"]
    assert stage["Default"] == "$default"
    for accepted in ("$default", "prod", "dev_2", "v-1", "a" * 64):
        assert _java_full_match(stage["AllowedPattern"], accepted), accepted
    for refused in ("", "$other", "default$", "pro/d", "a b", "a" * 65, "$default/x"):
        assert not _java_full_match(stage["AllowedPattern"], refused), refused
    assert template["Conditions"]["IsDefaultStage"] == {"Fn::Equals": [{"Ref": "Stage"}, "$default"]}
    assert template["Resources"]["HttpApi"]["Properties"]["StageName"] == {"Ref": "Stage"}


def test_samconfig_stage_is_one_the_template_accepts(template: dict[str, Any]) -> None:
    default = tomllib.loads(SAMCONFIG.read_text())["default"]
    overrides = dict(kv.split("=", 1) for kv in default["global"]["parameters"]["parameter_overrides"].split())
    assert _java_full_match(template["Parameters"]["Stage"]["AllowedPattern"], overrides["Stage"])


# --- the layer --------------------------------------------------------------------------------


def test_layer_is_built_by_makefile_for_the_function_architecture(
    template: dict[str, Any], function: dict[str, Any], layer: dict[str, Any]
) -> None:
    assert layer["Type"] == "AWS::Serverless::LayerVersion"
    meta, props = layer["Metadata"], layer["Properties"]
    assert meta["BuildMethod"] == "makefile"
    arch = {"Ref": "Architecture"}
    assert meta["BuildArchitecture"] == arch
    assert props["CompatibleArchitectures"] == [arch]
    assert function["Architectures"] == [arch]
    assert meta["ContextPath"] == {"Fn::Sub": "layers/arch/${Architecture}"}
    assert props["ContentUri"].rstrip("/") == "layers"
    assert props["CompatibleRuntimes"] == [function["Runtime"]]
    assert props.get("PublishLambdaVersion") is True, "a new layer must publish a new function version"
    assert function["Layers"] == [{"Ref": "DependenciesLayer"}]
    assert set(template["Parameters"]["Architecture"]["AllowedValues"]) == {"x86_64", "arm64"}


def test_layer_makefile_targets_the_lambda_platform(function: dict[str, Any]) -> None:
    text = (LAYERS / "Makefile").read_text()
    assert re.search(r"^build-DependenciesLayer:", text, re.M), "SAM runs make build-<LogicalId>"
    pip = text[text.index("-m pip install") :]
    for flag in ("--platform", "--python-version", "--only-binary=:all:", "--implementation cp", "--target"):
        assert flag in pip
    python_version = function["Runtime"].removeprefix("python")
    assert re.search(rf"^PYTHON_VERSION \?= {re.escape(python_version)}$", text, re.M), "must match the Runtime"
    assert '"$(ARTIFACTS_DIR)/python"' in pip


@pytest.mark.parametrize(("arch", "machine"), [("x86_64", "x86_64"), ("arm64", "aarch64")])
def test_each_architecture_gets_its_own_wheels(arch: str, machine: str, tmp_path: Path) -> None:
    makefile = LAYERS / "arch" / arch / "Makefile"
    assert makefile.is_file(), f"ContextPath layers/arch/{arch} needs a Makefile"
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")
    # Dry run: print the commands SAM would run, without downloading anything. ARCH in the
    # environment must not leak into the build (it is a common variable name).
    result = subprocess.run(
        [make, "-n", "-f", str(makefile), "build-DependenciesLayer", f"ARTIFACTS_DIR={tmp_path}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PATH": str(Path(make).parent), "ARCH": "bogus", "LAYER_ARCH": "bogus"},
        timeout=30,
    )
    platforms = re.findall(r"--platform (\S+)", result.stdout)
    assert platforms, result.stdout
    assert all(p.endswith("_" + machine) for p in platforms), platforms
    assert "manylinux2014_" + machine in platforms


def test_layer_requirements_are_the_runtime_pins() -> None:
    lines = [
        line.strip()
        for line in (LAYERS / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert sorted(lines) == sorted(
        ["mcp==2.3.0", "mangum==0.22.0", "aws-lambda-powertools==3.37.0", "sqlglot==30.30.0",
         "antlr4-python3-runtime==4.13.2"]
    )
    names = {re.split(r"[=<>~!\[ ]", line)[0].lower() for line in lines}
    assert not names & {"boto3", "botocore"}, "the Lambda runtime provides boto3/botocore"
    pyproject = ROOT / "pyproject.toml"
    if pyproject.is_file():
        deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
        for line in lines:
            assert line in deps, f"{line} differs from pyproject.toml"


# --- samconfig ----------------------------------------------------------------------------------


def test_samconfig(template: dict[str, Any]) -> None:
    config = tomllib.loads(SAMCONFIG.read_text())
    assert config["version"] == 0.1
    default = config["default"]
    assert default["global"]["parameters"]["stack_name"] == "aws-data-mcp"
    # Build and deploy must see the same Architecture (the layer is built for it).
    overrides = dict(kv.split("=", 1) for kv in default["global"]["parameters"]["parameter_overrides"].split())
    assert set(overrides) == {"Stage", "AuthMode", "Architecture"}
    for name, value in overrides.items():
        param = template["Parameters"][name]
        assert value in param.get("AllowedValues", [value])
    assert "parameter_overrides" not in default["build"]["parameters"]
    deploy = default["deploy"]["parameters"]
    assert deploy["capabilities"] == "CAPABILITY_IAM"
    assert deploy["confirm_changeset"] is True
    assert deploy["resolve_s3"] is True
    assert default["validate"]["parameters"]["lint"] is True
    assert default["build"]["parameters"] == {"cached": True, "parallel": True}
