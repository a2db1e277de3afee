#!/usr/bin/env bash
# Install code-intel into a project: ./init-project.sh DIR [--force] [--codex] [--no-hooks] [--no-allow] [--remove-hooks]
# Same as `.venv/bin/code-intel init DIR`; this wrapper only finds the venv from any working directory.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$here/.venv/bin/code-intel"
if [[ ! -x "$cli" ]]; then
    echo "init-project.sh: $cli not found; run $here/setup.sh first" >&2
    exit 1
fi
if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    echo "usage: $0 DIR [--force] [--codex] [--no-hooks] [--no-allow] [--remove-hooks]" >&2
    echo "  writes DIR/.code-intel/ and the /code skill, adds runtime folders to DIR/.gitignore, merges" >&2
    echo "  DIR/.mcp.json and the Claude Code hooks and permission rule into DIR/.claude/settings.json" >&2
    echo "  --force         replace files you changed (otherwise they are kept)" >&2
    echo "  --codex         also the Codex skill (.agents/skills/code), .codex/hooks.json and MCP entry" >&2
    echo "  --no-hooks      leave the hooks out;  --no-allow  leave the permission rule out" >&2
    echo "  --remove-hooks  only take code-intel's hooks out of the client settings again" >&2
    [[ $# -lt 1 ]] && exit 2 || exit 0
fi
exec "$cli" init "$@"
