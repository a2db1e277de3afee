"""Working-tree snapshots: what the tree looked like when a session started, without touching it.

A snapshot is a commit kept alive by `refs/code-intel/snapshots/<session_id>`, shaped like a
`git stash` entry: its tree is the whole working tree (tracked and untracked files, minus ignored
ones and `.code-intel/`), its first parent is HEAD at that moment and its second parent holds
the user's index. Trees are built in a throw-away index, so the user's files and index stay as
they are. "Changed since the snapshot" is then a tree diff against a fresh tree of the working
tree, which never counts the user's own earlier edits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from code_intel.core import faults
from code_intel.core.errors import GitError
from code_intel.core.project import STATE_DIR
from code_intel.git.runner import BOOKKEEPING_IDENTITY, EMPTY_TREE, GitRunner

SNAPSHOT_REF_PREFIX = "refs/code-intel/snapshots/"
LITERAL_PATHS = {"GIT_LITERAL_PATHSPECS": "1"}


@dataclass(frozen=True)
class RepoLayout:
    """Maps project-relative paths to repository paths when the project is a sub-folder of the repository."""

    prefix: str  # "" at the repository top, else "sub/dir/"

    def to_repo(self, project_path: str) -> str:
        return f"{self.prefix}{project_path}"

    def from_repo(self, repo_path: str) -> str | None:
        """Project-relative path, or None for files outside the project or in `.code-intel/`."""
        if not repo_path.startswith(self.prefix):
            return None
        rel = repo_path[len(self.prefix):]
        if PurePosixPath(rel).parts[:1] == (STATE_DIR,):
            return None
        return rel

    @property
    def scope(self) -> list[str]:
        """Pathspecs covering the project minus its `.code-intel/` folder."""
        return [self.prefix.rstrip("/") or ".", f":(exclude){self.prefix}{STATE_DIR}"]


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    oid: str
    kind: str  # blob, commit (submodule) or tree


def working_tree(git: GitRunner, layout: RepoLayout) -> str:
    """Tree id of the current working tree (ignored files and `.code-intel/` left out)."""
    scope = layout.scope
    if git.ok("check-ignore", "-q", "--", layout.to_repo(STATE_DIR)):
        # an ignored .code-intel/ is skipped by `add -A` anyway, and naming it in an exclude pathspec
        # makes git refuse ("paths are ignored by one of your .gitignore files", exit 1)
        scope = scope[:1]
    with git.temporary_index(seed_from_real_index=True) as env:
        git.run(["add", "-A", "--", *scope], env=env)
        return git.text("write-tree", env=env)


def index_tree(git: GitRunner) -> str | None:
    """Tree id of the user's index as it stands, or None while it holds unresolved conflicts."""
    with git.temporary_index(seed_from_real_index=True) as env:
        status, out, _ = git.run(["write-tree"], env=env, check=False)
        return out.decode().strip() if status == 0 else None


def take_snapshot(git: GitRunner, layout: RepoLayout, session_id: str, head: str | None) -> str:
    """Record the working tree and index as they are now; returns the snapshot commit id."""
    ref = SNAPSHOT_REF_PREFIX + session_id
    if not git.ok("check-ref-format", ref):
        raise GitError(
            f"session id {session_id!r} cannot name a git ref",
            hint="session ids must be plain letters, digits, '-' or '_'",
        )
    parents = ["-p", head] if head else []
    tree = working_tree(git, layout)
    staged = index_tree(git)
    if staged:
        index_commit = git.text("commit-tree", "--no-gpg-sign", *parents, "-m", f"code-intel index at start of {session_id}", staged, env=BOOKKEEPING_IDENTITY)
        parents += ["-p", index_commit]
    snapshot = git.text("commit-tree", "--no-gpg-sign", *parents, "-m", f"code-intel snapshot at start of {session_id}", tree, env=BOOKKEEPING_IDENTITY)
    git.run(["update-ref", "-m", "code-intel snapshot", ref, snapshot])
    faults.hit("git.snapshot.after_ref")
    return snapshot


def drop_snapshot(git: GitRunner, session_id: str) -> None:
    git.run(["update-ref", "-d", SNAPSHOT_REF_PREFIX + session_id], check=False)


def list_snapshot_refs(git: GitRunner) -> list[str]:
    out = git.text("for-each-ref", "--format=%(refname)", SNAPSHOT_REF_PREFIX)
    return [line for line in out.splitlines() if line]


def snapshot_tree(git: GitRunner, snapshot: str) -> str:
    tree = git.rev(f"{snapshot}^{{tree}}")
    if not tree:
        raise GitError(
            f"the session's working-tree snapshot {snapshot[:12]} is missing from the repository",
            hint="run cleanup_stale_branches (--clean) and start a new session",
        )
    return tree


def snapshot_base(git: GitRunner, snapshot: str) -> str | None:
    """HEAD when the snapshot was taken (None on a repository with no commit yet)."""
    return git.rev(f"{snapshot}^1")


def snapshot_index(git: GitRunner, snapshot: str) -> str | None:
    """Tree of the user's index when the snapshot was taken, when it could be recorded."""
    return git.rev(f"{snapshot}^2^{{tree}}")


def tree_of(git: GitRunner, commit: str | None) -> str:
    if not commit:
        return EMPTY_TREE
    tree = git.rev(f"{commit}^{{tree}}")
    return tree or EMPTY_TREE


def entry(git: GitRunner, tree: str, repo_path: str) -> TreeEntry | None:
    """The entry `repo_path` has in `tree`, or None when the tree does not hold it."""
    out = git.run(["ls-tree", "-z", "--full-tree", tree, "--", repo_path], env=LITERAL_PATHS)[1]
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        if name.decode(errors="surrogateescape") != repo_path:
            continue
        mode, kind, oid = meta.decode().split()
        return TreeEntry(mode=mode, oid=oid, kind=kind)
    return None


def changed_paths(git: GitRunner, old_tree: str, new_tree: str) -> list[str]:
    """Repository paths whose content or mode differs between two trees (renames as delete + add)."""
    out = git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", old_tree, new_tree])[1]
    return [p.decode(errors="surrogateescape") for p in out.split(b"\0") if p]
