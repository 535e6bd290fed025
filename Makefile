# The two commands a newcomer needs: `make demo` and `make test`. Each installs what it needs first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# mcp-proxy-for-aws (the SigV4 proxy iam-mode users run) pins its own MCP SDK: it gets a venv of its own.
PROXY := .venv-proxy/bin/mcp-proxy-for-aws

.PHONY: install demo demo-iam demo-oidc serve test lint bench build clean views views-install grammar-install grammar judge-install
# The MCP Apps views' build tools and browser test driver (esbuild, ext-apps, playwright-core), pinned by the lockfile.
VIEWS_STAMP := views/node_modules/.installed-stamp
# The independent IAM judge of the tests (@cloud-copilot/iam-simulate, run through node), pinned by its lockfile.
JUDGE_STAMP := tests/judge/node_modules/.installed-stamp

# `make demo PORT=8001` (or any target that serves): another port than 8000.
PORT ?=
PORT_OPTION := $(if $(PORT),--port $(PORT))

$(STAMP): pyproject.toml
	@echo "== Installing aws-data-mcp and what it runs on (MCP SDK, boto3, moto, DuckDB, pytest, ruff, cfn-lint)"
	@echo "== into $(VENV)/: once, and again only when pyproject.toml changes (about 40 s on a quiet machine, minutes on a busy one) =="
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: install  ## serve http://127.0.0.1:8000/mcp (PORT=... for another) against an embedded emulated AWS account
	$(PY) -m aws_data_mcp_demo $(PORT_OPTION)

demo-iam: install  ## the hosted path on one machine: SigV4 through a local API Gateway front, several callers
	$(PY) -m aws_data_mcp_demo --auth iam $(PORT_OPTION)

demo-oidc: install  ## the same with bearer tokens from a demo issuer
	$(PY) -m aws_data_mcp_demo --auth oidc $(PORT_OPTION)

serve: install  ## serve http://127.0.0.1:8000/mcp with your own AWS credentials
	$(PY) -m aws_data_mcp serve $(PORT_OPTION)

$(PROXY):
	$(PYTHON) -m venv .venv-proxy
	.venv-proxy/bin/pip install --quiet --disable-pip-version-check mcp-proxy-for-aws==1.7.0

lint: install  ## ruff, and cfn-lint on the template in every region (the suite lints one region per partition)
	$(PY) -m ruff check .
	$(VENV)/bin/cfn-lint --include-checks I --regions ALL_REGIONS -- template.yaml

$(VIEWS_STAMP): views/package-lock.json
	@command -v npm >/dev/null || { echo "== npm not found: the views' browser tests will skip (install Node 20+)"; exit 0; }; \
	cd views && npm ci --no-audit --no-fund --loglevel=error && touch .installed-stamp && mv .installed-stamp node_modules/

views-install: $(VIEWS_STAMP)

# The ANTLR tool jar (from npm's antlr4ng-cli, pinned by the lockfile) that generates the parser of Trino's grammar the
# guard's differential tests read by (tests/support/trino_grammar; Java 17+). Test tooling only.
GRAMMAR_STAMP := tests/support/trino_grammar/node_modules/.installed-stamp

$(GRAMMAR_STAMP): tests/support/trino_grammar/package-lock.json
	cd tests/support/trino_grammar && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed-stamp

grammar-install: $(GRAMMAR_STAMP)

# The parser the guard reads queries by, generated from Trino's grammar into the package (a test checks it matches).
GUARD_PARSER := functions/aws_data_mcp/guard/trino_sql

grammar: grammar-install  ## regenerate the guard's parser from tests/support/trino_grammar/SqlBase.g4 (Java 17+)
	cd tests/support/trino_grammar && java -jar node_modules/antlr4ng-cli/antlr4-4.13.2-SNAPSHOT-complete.jar \
		-Dlanguage=Python3 -no-listener -no-visitor -Xexact-output-dir -o $(CURDIR)/$(GUARD_PARSER) SqlBase.g4
	rm -f $(GUARD_PARSER)/*.interp $(GUARD_PARSER)/*.tokens

$(JUDGE_STAMP): tests/judge/package-lock.json
	@command -v npm >/dev/null || { echo "== npm not found: the IAM judge's tests will skip (install Node 20+)"; exit 0; }; \
	cd tests/judge && npm ci --no-audit --no-fund --loglevel=error && touch .installed-stamp && mv .installed-stamp node_modules/

judge-install: $(JUDGE_STAMP)

views: views-install  ## rebuild the MCP Apps views (views/src -> functions/aws_data_mcp/views/*.html)
	cd views && node build.mjs

test: lint $(PROXY) views-install grammar-install judge-install  ## lint, then the whole test suite on every core and one more worker (end-to-end through the real SigV4 proxy too)
	@# The package's bytecode, once: where PYTHONDONTWRITEBYTECODE is set, every server process the suite starts
	@# would compile it again (a third of a second of CPU each).
	$(PY) -m compileall -q functions
	$(PY) -m pytest -n auto

bench: install  ## performance ratios against baselines measured in the same run
	$(PY) benchmarks/run.py --record

build:  ## sam build (needs aws-sam-cli; the layer builds for Lambda with pip --platform, no Docker)
	sam build

clean:
	rm -rf $(VENV) .aws-sam
