#!/usr/bin/env bash
# One-command set-up of code-intel on Debian/Ubuntu (macOS: see the hints it prints).
#   ./setup.sh            from any working directory; safe to run again (fast when nothing is missing)
# It creates .venv/, installs torch (CPU) and the project with its dev extras, makes sure git and
# Universal Ctags (with JSON output) are present, and ends with `code-intel doctor`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
venv="$here/.venv"
stamp="$venv/.code-intel-setup"
torch_version="2.13.0"
torch_cpu_index="https://download.pytorch.org/whl/cpu"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# ------------------------------------------------------------------ system packages
apt_updated=0
apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "need root or sudo to install: $*"
        sudo=(sudo)
    fi
    if [[ $apt_updated -eq 0 ]]; then
        say "apt-get update"
        "${sudo[@]}" apt-get update -qq
        apt_updated=1
    fi
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
}

universal_ctags_ok() {
    command -v ctags >/dev/null 2>&1 || return 1
    ctags --version 2>/dev/null | head -n1 | grep -q "Universal Ctags" || return 1
    ctags --list-features 2>/dev/null | grep -qE '^json\b'
}

if ! command -v git >/dev/null 2>&1; then
    apt_install git || die "git is missing: install it (macOS: xcode-select --install)"
fi
if ! universal_ctags_ok; then
    if [[ "$(uname -s)" == "Darwin" ]]; then
        die "Universal Ctags with JSON output is missing: run 'brew install universal-ctags', then rerun ./setup.sh"
    fi
    apt_install universal-ctags || die "install Universal Ctags (package universal-ctags) and rerun ./setup.sh"
    universal_ctags_ok || die "'ctags' on PATH is not Universal Ctags with JSON output: $(command -v ctags)"
fi
# headless Chromium for the test that opens the session report page (tests/report); optional: the test skips without it
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    if [[ "$(id -u)" -eq 0 ]] || command -v sudo >/dev/null 2>&1; then
        apt_install chromium || say "chromium not installed: the report's browser test will be skipped"
    else
        say "chromium is missing (apt-get install chromium as root): the report's browser test will be skipped"
    fi
fi

# ------------------------------------------------------------------ python and the venv
find_python() {
    local candidate
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python="$(find_python)" || {
        apt_install python3 python3-venv || die "Python 3.11 or newer is required (macOS: brew install python@3.11)"
        python="$(find_python)" || die "Python 3.11 or newer is required"
    }
    rm -rf "$venv"
    say "creating .venv with $python"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        rm -rf "$venv"
        apt_install python3-venv || die "'$python -m venv' failed; install the venv module for $python"
        "$python" -m venv "$venv"
    fi
fi
pip=("$venv/bin/python" -m pip --quiet)

# The set-up is done when the stamp holds the hash of what it installed from.
wanted_stamp="$( (cat pyproject.toml; "$venv/bin/python" -V; echo "torch $torch_version") | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted_stamp" && -x "$venv/bin/code-intel" ]]; then
    say "python packages up to date (delete $stamp to force a reinstall)"
else
    if ! "$venv/bin/python" -c "import torch, sys; sys.exit(not torch.__version__.startswith('$torch_version'))" 2>/dev/null; then
        say "installing torch $torch_version (CPU)"
        # A CPU build found by pip's own configuration first; else the PyTorch CPU index.
        if [[ "$(uname -s)" == "Linux" ]] && "${pip[@]}" install "torch==${torch_version}+cpu" 2>/dev/null; then
            :
        else
            "${pip[@]}" install "torch==${torch_version}" --index-url "$torch_cpu_index"
        fi
    fi
    say "installing code-intel and its dependencies (pip install -e .[dev])"
    "${pip[@]}" install -e ".[dev]"
    echo "$wanted_stamp" >"$stamp"
fi

# mypy cannot follow the editable mapping of the package name `code_intel` to tools/: give it a link.
mkdir -p "$venv/mypy-path"
ln -sfn "$here/tools" "$venv/mypy-path/code_intel"

[[ -x "$venv/bin/rg" ]] || die "rg missing from .venv/bin (the ripgrep wheel); delete $stamp and rerun ./setup.sh"

# ------------------------------------------------------------------ final check
say "code-intel doctor"
"$venv/bin/code-intel" doctor
