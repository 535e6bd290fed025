"""The AWS resources' tests: a package, so that its conftest.py (moto's gaps, filled per test) is
`resources.conftest` and never shadows the suite's own `conftest` module that tests import from."""
