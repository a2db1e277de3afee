"""The package as a user gets it: a wheel built from this checkout, installed into a fresh virtualenv that has
nothing of the checkout on its sys.path, set up in a project with `code-intel init`, and driven through the
server command that init wrote into `.mcp.json`, as an MCP client starts it.

The virtualenv takes its third-party dependencies from the development venv's site-packages (linked into a
folder of its own, leaving out code-intel's own editable install), so the test builds and installs in seconds
without a download; the wheel itself is installed by pip with its dependencies resolved against them.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a wheel, makes a virtualenv, spawns the installed server twice

REPO = Path(__file__).resolve().parent.parent
# Entries of the development venv's site-packages that belong to the checkout or to pip, not to a dependency.
_NOT_DEPENDENCIES = ("__editable__", "code_intel", "tools", "pip", "_virtualenv", "__pycache__", "distutils-precedence")

DRIVER = textwrap.dedent('''
    """Runs inside the fresh virtualenv: spawn the server from .mcp.json, list its tools, drive a --quick session."""
    import json, sys
    from pathlib import Path

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    import code_intel
    from code_intel.cli.demo import REQUEST, DemoAgent, Printer, follow

    project, checkout, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    from_checkout = [p for p in sys.path if p and Path(p).resolve().is_relative_to(checkout)]


    async def main() -> dict:
        entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["code-intel"]
        env = {**entry.get("env", {}), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(project))
        seen = {"package": code_intel.__file__, "from_checkout": from_checkout, "command": entry["command"]}
        async with Client(params, read_timeout_seconds=300) as client:
            seen["tools"] = sorted(tool.name for tool in (await client.list_tools()).tools)
            if mode == "session":
                async def call(name, args):
                    result = await client.call_tool(name, args)
                    return dict(result.structured_content or {"success": False, "message": str(result.content)})

                agent = DemoAgent(call, project, Printer())
                resp = await call("start_session", {"intent": "IMPLEMENT", "query": REQUEST, "flags": ["--quick"]})
                final = await follow(agent, resp)
                seen["final"] = {k: final.get(k) for k in ("success", "phase", "error", "message")}
        return seen


    print("RESULT " + json.dumps(anyio.run(main)))
''')


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, check=False, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{argv} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _clean_copy(dest: Path) -> Path:
    """The checkout's files as git would hand them out (tracked plus new, unignored ones): no build leftovers."""
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO).stdout
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    return dest


def _dependency_folder(dest: Path) -> Path:
    """The development venv's third-party packages, linked one by one, without code-intel's own install."""
    dest.mkdir()
    for entry in Path(site.getsitepackages()[0]).iterdir():
        if entry.name.startswith(_NOT_DEPENDENCIES) or entry.suffix == ".pth":
            continue
        (dest / entry.name).symlink_to(entry)
    return dest


def _wheel(source: Path, out: Path, *extra: str) -> Path:
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", str(out), str(source), *extra])
    return next(out.glob("*.whl"))


def _git(repo: Path, *args: str) -> None:
    _run(["git", "-c", "user.name=code-intel test", "-c", "user.email=test@code-intel.invalid",
          "-c", "commit.gpgsign=false", *args], cwd=repo)


def _scratch_project(repo: Path) -> Path:
    """The demo's small calculator, committed in a new git repository."""
    from code_intel.cli.demo import SAMPLE_FILES

    for rel, text in SAMPLE_FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "calculator")
    return repo


def _driver(venv: Path, tmp: Path, project: Path, mode: str) -> dict[str, object]:
    script = tmp / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    # -I: neither the working directory nor PYTHONPATH goes on sys.path
    done = _run([str(venv / "bin" / "python"), "-I", str(script), str(project), str(REPO), mode], cwd=tmp)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh virtualenv, the wheel installed into it)."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to list the checkout's files")
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = _wheel(_clean_copy(tmp / "source"), tmp / "dist")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    rg = Path(sys.executable).parent / "rg"
    if rg.is_file():  # the ripgrep wheel puts rg in bin/; its files come from the development venv here
        (venv / "bin" / "rg").symlink_to(rg)
    purelib = next((venv / "lib").glob("python3*/site-packages"))
    (purelib / "dependencies.pth").write_text(str(_dependency_folder(tmp / "dependencies")) + "\n", encoding="utf-8")
    # pip runs inside the new interpreter (--python): it resolves the wheel's requirements against what is there
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-index",
          str(wheel)])
    return venv, wheel


def test_wheel_carries_what_init_writes_and_no_top_level_tools(installed: tuple[Path, Path]) -> None:
    import zipfile

    _, wheel = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"code_intel", "code_intel_server.py"}
    templates = sorted(p.relative_to(REPO / "templates").as_posix() for p in (REPO / "templates").rglob("*") if p.is_file())
    assert templates and all(f"code_intel/templates/{rel}" in names for rel in templates)
    assert "code_intel/skill/code.md" in names
    # every data file of the code (tree-sitter queries, tuned weights) too, under the installed name
    data = [p.relative_to(REPO / "tools").as_posix() for p in (REPO / "tools").rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data and [rel for rel in data if f"code_intel/{rel}" not in names] == []


def test_installed_wheel_inits_a_project_and_serves_a_quick_session(installed: tuple[Path, Path], tmp_path: Path) -> None:
    venv, wheel = installed
    bin_dir = venv / "bin"
    version = _run([str(bin_dir / "code-intel"), "--version"], cwd=tmp_path).stdout
    assert version.split()[:2] == ["code-intel", wheel.name.split("-")[1]]

    project = _scratch_project(tmp_path / "project")
    first = _run([str(bin_dir / "code-intel"), "init", str(project)], cwd=tmp_path).stdout
    assert "created     .mcp.json (mcpServers.code-intel)" in first, first
    # what init wrote comes from inside the installed package, byte for byte the checkout's sources
    assert (project / ".claude/commands/code.md").read_bytes() == (REPO / ".claude/commands/code.md").read_bytes()
    for name in ("phase_contract.yml", "task_planning.md", "verifiers/backend.md"):
        assert (project / ".code-intel" / name).read_bytes() == (REPO / "templates/code-intel" / name).read_bytes()
    # every command a client runs is the installed entry point, by an absolute path with no version in it
    entry = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["code-intel"]
    assert entry["command"] == str(bin_dir / "code-intel") and entry["args"][:1] == ["serve"]
    hooks = json.loads((project / ".claude/settings.json").read_text(encoding="utf-8"))["hooks"]
    commands = [h["command"] for groups in hooks.values() for group in groups for h in group["hooks"]]
    assert commands and all(c.startswith(str(bin_dir / "code-intel") + " hook ") for c in commands)
    assert "site-packages" not in json.dumps(entry) + "".join(commands)
    again = _run([str(bin_dir / "code-intel"), "init", str(project)], cwd=tmp_path).stdout
    assert "nothing written" in again, again
    # the server runs the sample's unittest suite at POST_IMPL_VERIFY, with the installed interpreter
    config_file = project / ".code-intel" / "config.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["verify"] = {"commands": [{"name": "unittest", "run": [str(bin_dir / "python"), "-m", "unittest", "-q"]}]}
    config_file.write_text(json.dumps(config), encoding="utf-8")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "code-intel init")

    seen = _driver(venv, tmp_path, project, "session")
    assert Path(str(seen["package"])).is_relative_to(venv) and seen["from_checkout"] == []
    assert {"start_session", "submit_phase", "search_text", "find_definitions"} <= set(seen["tools"])  # type: ignore[arg-type]
    assert seen["final"] == {"success": True, "phase": "SESSION_COMPLETE", "error": None, "message": None}

    # another distribution with a top-level `tools` package, installed beside it: both import, the server still serves
    other = tmp_path / "other-tools"
    (other / "tools").mkdir(parents=True)
    (other / "tools" / "__init__.py").write_text('ORIGIN = "other-tools"\n', encoding="utf-8")
    (other / "pyproject.toml").write_text(textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "other-tools"
        version = "1.0"
        [tool.setuptools]
        packages = ["tools"]
    """), encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--quiet", "--no-index",
          "--no-deps", str(_wheel(other, tmp_path / "other-dist"))])
    both = _run([str(bin_dir / "python"), "-I", "-c", "import tools, code_intel.cli.main, code_intel_server; "
                 "print(tools.ORIGIN, code_intel.cli.main.__name__)"], cwd=tmp_path).stdout
    assert both.split() == ["other-tools", "code_intel.cli.main"]
    assert set(_driver(venv, tmp_path, project, "list")["tools"]) == set(seen["tools"])  # type: ignore[arg-type]
