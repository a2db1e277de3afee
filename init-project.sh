#!/usr/bin/env bash
# Install code-intel into a project: ./init-project.sh DIR [--force]
# Same as `.venv/bin/code-intel init DIR`; this wrapper only finds the venv from any working directory.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$here/.venv/bin/code-intel"
if [[ ! -x "$cli" ]]; then
    echo "init-project.sh: $cli not found; run $here/setup.sh first" >&2
    exit 1
fi
if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    echo "usage: $0 DIR [--force]" >&2
    echo "  writes DIR/.code-intel/, adds runtime folders to DIR/.gitignore and merges DIR/.mcp.json" >&2
    echo "  --force  replace files you changed (otherwise they are kept)" >&2
    [[ $# -lt 1 ]] && exit 2 || exit 0
fi
exec "$cli" init "$@"
