"""The template's Rules evaluated as CloudFormation evaluates them, for the functions they use: which parameter
values `sam deploy` refuses, and why."""

from __future__ import annotations

from typing import Any


def rule_value(expression: Any, parameters: dict[str, str]) -> Any:
    """A Rules expression evaluated as CloudFormation does, for the functions this template's rules use."""
    if not isinstance(expression, dict):
        return expression
    ((function, args),) = expression.items()
    if function == "Ref":
        return parameters[args]
    values = [rule_value(arg, parameters) for arg in args]
    return {"Fn::Equals": lambda: values[0] == values[1], "Fn::Not": lambda: not values[0],
            "Fn::Or": lambda: any(values), "Fn::And": lambda: all(values),
            "Fn::Join": lambda: values[0].join(values[1]), "Fn::Contains": lambda: values[1] in values[0]}[function]()


def deploy_refusals(template: dict[str, Any], **given: str) -> list[str]:
    """The AssertDescriptions CloudFormation would stop a deploy with, for these parameter values."""
    parameters: dict[str, Any] = {name: str(p.get("Default", "")) for name, p in template["Parameters"].items()}
    parameters |= given
    for name, declared in template["Parameters"].items():  # a list parameter is a list of its comma-separated parts
        if declared["Type"] == "CommaDelimitedList":
            parameters[name] = parameters[name].split(",")
    return [assertion["AssertDescription"] for rule in template["Rules"].values()
            if rule_value(rule.get("RuleCondition", True), parameters)
            for assertion in rule["Assertions"] if not rule_value(assertion["Assert"], parameters)]
