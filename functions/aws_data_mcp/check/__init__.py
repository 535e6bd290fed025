"""`aws-data-mcp check`: what a deployed stack (or the local setup) will refuse, for whom, and the fix, read with the
operator's own credentials before the team finds out. Read-only: it calls Describe/Get/List and IAM's simulator only.

`target` says what is checked (a stack's function, as CloudFormation and Lambda describe it, or the local settings);
`findings` is the verdict each check gives; the checks, one concern each: `roles` (the function's role, each caller
role's trust for the auth mode), `workgroups` (cutoffs, results locations, encryption), `sign_in` (the Cognito pool),
`lake_formation` (its mode); `report` runs them all and prints.
"""
