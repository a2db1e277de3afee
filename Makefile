# The two entry points: `make demo` and `make test`; each runs ./setup.sh first (fast when nothing is missing).
# `make test` is what CI runs (.ci/run): lint, types, the package build check, then the whole suite in two runs.
.PHONY: setup test test-fast demo lint typecheck dist bench

setup:
	bash ./setup.sh

# The suite runs on pytest-xdist workers (a test module stays on one worker, so its module-scoped fixture is built
# once), then the tests marked `serial` (a wall-clock bound a busy machine could break) alone in one process.
test: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	$(MAKE) --no-print-directory dist
	.venv/bin/pytest -q -n auto --maxprocesses=4 --dist loadscope -m "not serial"
	.venv/bin/pytest -q -m serial

# Under a minute: no set-up, no embedding model, no spawned servers or long scenarios, and the tests
# spread over up to four worker processes (pytest-xdist; most tests wait on git, rg or ctags).
test-fast:
	@test -x .venv/bin/pytest || { echo "no .venv yet: run ./setup.sh (or make test) once"; exit 2; }
	@.venv/bin/python -c "import xdist" 2>/dev/null || { echo "pytest-xdist is missing from .venv: run ./setup.sh once"; exit 2; }
	.venv/bin/pytest -q -n auto --maxprocesses=4 -m "not model and not slow"

demo: setup
	.venv/bin/code-intel demo

lint:
	.venv/bin/ruff check .

typecheck:
	.venv/bin/mypy

# The sdist, and the wheel built from that sdist, into dist/, from a copy of the files git would hand out
# (tracked and new unignored ones: no build/ or egg-info leftovers), then `twine check` on both. A few seconds.
dist:
	@test -x .venv/bin/twine || { echo "build and twine are missing from .venv: run ./setup.sh once"; exit 2; }
	@echo "make dist: sdist and wheel from a clean copy of the tree, then twine check"
	@rm -rf dist
	@tree="$$(mktemp -d)" && trap 'rm -rf "$$tree" "$$tree.log"' EXIT && \
	git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$$tree" && \
	{ .venv/bin/python -m build --no-isolation --outdir dist "$$tree" >"$$tree.log" 2>&1 || { cat "$$tree.log"; exit 1; }; } && \
	.venv/bin/twine check --strict dist/*

bench:
	.venv/bin/python benchmarks/startup.py
	.venv/bin/python benchmarks/hooks.py
