# The two entry points: `make demo` and `make test`; each runs ./setup.sh first (fast when nothing is missing).
.PHONY: setup test demo lint typecheck bench

setup:
	bash ./setup.sh

test: setup
	.venv/bin/pytest -q

demo: setup
	.venv/bin/code-intel demo

lint:
	.venv/bin/ruff check .

typecheck:
	.venv/bin/mypy

bench:
	.venv/bin/python benchmarks/startup.py
	.venv/bin/python benchmarks/hooks.py
