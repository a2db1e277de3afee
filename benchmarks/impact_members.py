"""analyze_impact without symbols over a repository's source files (its first 40 Python, JS/TS, Go and Rust files that
are not tests), with and without the member rule (a bare name in another file is not a use of a class member):
items listed before and after, and a sample of the dropped ones to read by hand.

    .venv/bin/python benchmarks/impact_members.py PATH/TO/REPO [SEED]
"""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from code_intel.core.config import Config
from code_intel.core.file_roles import is_test_file
from code_intel.core.project import ProjectRoot
from code_intel.explore import impact
from code_intel.explore.service import Explorer
from code_intel.languages.table import language_for

repo = Path(sys.argv[1]).resolve()
ex = Explorer(ProjectRoot.from_args(repo), lambda: Config())
LANGUAGES = ("python", "javascript", "typescript", "go", "rust")
files = sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts
               and language_for(str(p)) in LANGUAGES and not is_test_file(str(p.relative_to(repo))))
files = [f for f in files if "node_modules" not in f][:40]
orig = impact._member_only_names
impact.MAX_ITEMS_PER_GROUP = 1_000_000  # no cap: a line left out is left out by the rule, not crowded out
dropped: list[tuple[str, dict]] = []
added = 0
kept_total = base_total = 0
for f in files:
    impact._member_only_names = lambda targets: set()  # the rule off
    before = impact.analyze_impact(ex, [f], None).model_dump()
    impact._member_only_names = orig
    after = impact.analyze_impact(ex, [f], None).model_dump()
    def key(group: str, i: dict) -> tuple:  # as a report files them: a test file once, other items by line
        return (group, i["file"]) if group == "tests" else (group, i["file"], i["line"])
    b = {key(g, i): i for g in ("dependents", "tests", "configs") for i in before[g]}
    a = {key(g, i) for g in ("dependents", "tests", "configs") for i in after[g]}
    base_total += len(b)
    kept_total += len(a)
    added += len(a - set(b))  # listed only with the rule (none expected without the caps)
    for k, i in b.items():
        if k not in a:
            dropped.append((f, i))
print(f"{repo.name}: {len(files)} files, items before {base_total}, after {kept_total}, left out {len(dropped)}, "
      f"newly listed {added}")
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
for f, i in random.sample(dropped, min(15, len(dropped))):
    print(f"  {f} :: {i['symbol']} @ {i['file']}:{i['line']}  {i.get('text','')[:70]}")
