"""analyze_impact through the real Explorer (rg, ctags, tree-sitter) on a small polyglot project."""

from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import DocumentSearchSettings
from code_intel.core.errors import FileNotFound, InvalidArgument, PathOutsideProject
from code_intel.explore import impact
from code_intel.explore.impact import analyze_impact as impact_report
from code_intel.explore.service import Explorer
from tests.explore.conftest import explorer_over


def analyze_impact(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The report as the wire shows it (null fields left out)."""
    return impact_report(*args, **kwargs).model_dump(exclude_none=True)

PROJECT = {
    "app/__init__.py": "",
    "app/config.py": (
        '"""Config loading."""\n'  # 1
        "import json\n"  # 2
        "\n"  # 3
        "DEFAULT_TIMEOUT = 30\n"  # 4
        "\n"  # 5
        "\n"  # 6
        "class ConfigLoader:\n"  # 7
        "    def load_settings(self, path):\n"  # 8
        "        return parse_config(open(path).read())\n"  # 9
        "\n"  # 10
        "\n"  # 11
        "def parse_config(text):\n"  # 12
        "    return json.loads(text)\n"  # 13
        "\n"  # 14
        "\n"  # 15
        "def emit(text):\n"  # 16
        "    return text\n"  # 17
    ),
    "app/service.py": (
        "from app.config import parse_config, ConfigLoader\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "def start():\n"  # 4
        "    # parse_config in a comment is not a use\n"  # 5
        "    return parse_config('{}')\n"  # 6
    ),
    "app/relative_user.py": "from .config import DEFAULT_TIMEOUT\n\nLIMIT = DEFAULT_TIMEOUT * 2\n",
    "app/plugins.py": "from . import config\n\nloader = config.ConfigLoader()\n",
    "app/other.py": "def parse_config(raw):\n    return raw\n",
    "tests/test_config.py": (
        "from app.config import parse_config\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "def test_parse():\n"  # 4
        "    assert parse_config('{}') == {}\n"  # 5
    ),
    "settings.yaml": "loader: parse_config\ntimeout: 5\n",
    "pyproject.toml": '[project.entry-points.x]\nrun = "app.config:main"\n',
    "docs/config.md": "# Config\n\nCall `parse_config` to read a file, then emit it.\n",
    "docs/archive/old.md": "parse_config used to be different.\n",
    "web/util.ts": "export function formatDate(d: Date): string {\n  return d.toISOString();\n}\n",
    "web/main.ts": "import { formatDate } from './util';\n\nconsole.log(formatDate(new Date()));\n",
    "web/util.test.ts": "import { formatDate } from './util';\ntest('x', () => formatDate(new Date()));\n",
    "web/site.css": ".btn-primary { color: red }\n",
    "web/index.html": '<button class="btn-primary">Go</button>\n',
}

DOCS = DocumentSearchSettings(include_patterns=["**/*.md"], exclude_patterns=["docs/archive/**"])


@pytest.fixture
def explorer(tmp_path: Path) -> Explorer:
    return explorer_over(tmp_path, PROJECT)


def places(items: list[dict]) -> set[tuple[str, int]]:
    return {(i["file"], i["line"]) for i in items}


def test_named_symbol_groups_its_impact(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], ["parse_config"], document_search=DOCS)
    assert report["files"] == ["app/config.py"]
    assert report["symbols"] == ["parse_config"]
    assert places(report["direct"]) == {("app/config.py", 12)}
    assert report["direct"][0]["end_line"] == 13
    dependents = {(i["file"], i["line"]): i["reason"] for i in report["dependents"]}
    assert dependents[("app/service.py", 1)] == "imports parse_config; imports app/config.py"
    assert dependents[("app/service.py", 6)] == "calls parse_config"
    assert ("app/service.py", 5) not in dependents  # a comment is not a use
    test_item = next(i for i in report["tests"] if i["file"] == "tests/test_config.py")
    assert (test_item["line"], test_item["lines"]) == (1, [1, 5])  # one item per test file
    assert "calls parse_config" in test_item["reason"]
    assert ("settings.yaml", 1) in places(report["configs"])
    assert ("pyproject.toml", 2) in places(report["configs"])  # mentions the module app.config
    assert places(report["docs"]) == {("docs/config.md", 3)}
    assert ("app/other.py", 1) in places(report["should_verify"])
    assert report["summary"]["direct"] == 1
    assert report["summary"]["tests"] == len(report["tests"])
    assert report["truncated"] is False


def test_every_item_points_into_a_file_with_a_reason(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], None, document_search=DOCS)
    for group in ("direct", "dependents", "tests", "configs", "docs", "should_verify"):
        for item in report[group]:
            assert (explorer.root.path / item["file"]).is_file()
            assert item["line"] >= 1 and item["reason"]


def test_without_symbols_the_file_outline_is_followed(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], None, document_search=DOCS)
    direct = {(i["symbol"], i["line"]) for i in report["direct"]}
    assert {("DEFAULT_TIMEOUT", 4), ("ConfigLoader", 7), ("load_settings", 8), ("parse_config", 12)} <= direct
    assert {"DEFAULT_TIMEOUT", "ConfigLoader", "load_settings", "parse_config"} <= set(report["symbols"])
    found = places(report["dependents"])
    assert ("app/relative_user.py", 1) in found  # relative import of the module's name
    assert ("app/relative_user.py", 3) in found
    assert ("app/plugins.py", 1) in found  # `from . import config` imports the module itself
    assert ("app/plugins.py", 3) in found
    assert ("tests/test_config.py", 1) in places(report["tests"])
    import_line = next(i for i in report["dependents"] if (i["file"], i["line"]) == ("app/service.py", 1))
    assert {"parse_config", "ConfigLoader", "app.config"} == set(import_line["symbols"])


def test_short_words_from_the_outline_are_skipped_unless_asked(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], None, document_search=DOCS)
    assert "emit" not in report["symbols"]
    assert ("app/config.py", 16) in places(report["direct"])
    assert any(s["symbol"] == "emit" and "pass it in symbols" in s["reason"] for s in report["skipped"])
    asked = analyze_impact(explorer, ["app/config.py"], ["emit"], document_search=DOCS)
    assert asked["symbols"] == ["emit"]
    assert asked["docs"] == []  # a plain word is not searched in prose
    assert any("plain words ['emit']" in n for n in asked["notes"])


def test_an_empty_symbol_list_means_the_whole_outline(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], [], document_search=DOCS)
    assert {"ConfigLoader", "parse_config"} <= set(report["symbols"])


def test_test_files_named_after_the_changed_file_are_listed(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], ["DEFAULT_TIMEOUT"], document_search=DOCS)
    named = [i for i in report["tests"] if "test named after app/config.py" in i["reason"]]
    assert [(i["file"], i["line"]) for i in named] == [("tests/test_config.py", 1)]


def test_typescript_importers_and_tests(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["web/util.ts"], None, document_search=DOCS)
    assert ("web/util.ts", 1) in places(report["direct"])
    assert {("web/main.ts", 1), ("web/main.ts", 3)} <= places(report["dependents"])
    test_item = next(i for i in report["tests"] if i["file"] == "web/util.test.ts")
    assert test_item["lines"] == [1, 2]
    assert "test named after web/util.ts" in test_item["reason"]
    assert "web/util.test.ts" not in {i["file"] for i in report["dependents"]}


def test_stylesheet_change_reports_markup_to_verify(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["web/site.css"], None, document_search=DOCS)
    assert report["direct"] == [] and report["dependents"] == []
    assert places(report["should_verify"]) == {("web/index.html", 1)}
    assert report["should_verify"][0]["symbol"] == ".btn-primary"


def test_over_common_and_special_names_are_skipped_with_a_reason(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["app/config.py"], ["get", "__init__", "parse_config"], document_search=DOCS)
    assert report["symbols"] == ["parse_config"]
    assert {s["symbol"] for s in report["skipped"]} == {"get", "__init__"}
    assert any("not defined in the given files" in n for n in report["notes"])


def test_symbol_cap_is_reported_as_truncated(explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(impact, "MAX_SYMBOLS", 2)
    report = analyze_impact(explorer, ["app/config.py"], None, document_search=DOCS)
    assert report["truncated"] is True
    assert len(report["symbols"]) == 2
    assert any("symbols" in n for n in report["notes"])


def test_refusals(explorer: Explorer, tmp_path: Path) -> None:
    with pytest.raises(PathOutsideProject):
        analyze_impact(explorer, ["../elsewhere.py"], None)
    (tmp_path / "app" / "escape.py").symlink_to("/etc/hostname")
    with pytest.raises(PathOutsideProject):
        analyze_impact(explorer, ["app/escape.py"], None)
    with pytest.raises(FileNotFound):
        analyze_impact(explorer, ["app/missing.py"], None)
    with pytest.raises(InvalidArgument):
        analyze_impact(explorer, [], None)
    with pytest.raises(InvalidArgument):
        analyze_impact(explorer, ["app"], None)
    with pytest.raises(InvalidArgument):
        analyze_impact(explorer, ["app/config.py"], ["not a name"])
    with pytest.raises(InvalidArgument):
        analyze_impact(explorer, ["app/config.py"], [""])


def test_app_runs_it_with_the_project_settings(explorer: Explorer) -> None:
    from code_intel.server.app import CodeIntelApp

    report = CodeIntelApp(explorer.root).analyze_impact(["app/config.py"], ["parse_config"]).model_dump()
    assert ("app/service.py", 6) in places(report["dependents"])
    # default document_search (context.yml absent) covers every Markdown file, the archive included
    assert {"docs/config.md", "docs/archive/old.md"} <= {i["file"] for i in report["docs"]}


def test_a_module_named_inside_a_multi_line_import_list_is_an_importer(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def alpha():\n    return 1\n",
        "pkg/other.py": "def beta():\n    return 2\n",
        "main.py": "from pkg import (\n    other,  # helper\n    core,\n)\n\ncore.alpha()\n",
        "pkg/sibling.py": "from . import (\n    core as c,\n)\n",
        "unrelated.py": "from pkg import (\n    other,\n)\n",
    }
    explorer = explorer_over(tmp_path, files)
    report = analyze_impact(explorer, ["pkg/core.py"], None)
    importers = {i["file"]: i["line"] for i in report["dependents"] if "imports pkg/core.py" in i["reason"]}
    assert importers == {"main.py": 1, "pkg/sibling.py": 1}
    # asked about alpha: main.py uses it and keeps its import line; sibling.py only imports the module, so it is
    # counted in a note instead of listed
    report = analyze_impact(explorer, ["pkg/core.py"], ["alpha"])
    importers = {i["file"]: i["line"] for i in report["dependents"] if "imports pkg/core.py" in i["reason"]}
    assert importers == {"main.py": 1}
    assert "1 file imports the changed files without a use of alpha: not listed" in " ".join(report["notes"])


def test_importers_are_named_by_the_module_their_line_imports(tmp_path: Path) -> None:
    files = {
        "src/pkg/__init__.py": "",
        "src/pkg/core.py": "def alpha():\n    return 1\n",
        "src/pkg/sibling.py": "from .core import alpha\n",
        "app.py": "from pkg import core\n\ncore.alpha()\n",
    }
    report = analyze_impact(explorer_over(tmp_path, files), ["src/pkg/core.py"], None)
    named = {i["file"]: i.get("symbols") or [i["symbol"]] for i in report["dependents"] if i["line"] == 1}
    assert "pkg.core" in named["app.py"] and ".core" in named["src/pkg/sibling.py"]  # not src.pkg.core


def test_a_bare_name_elsewhere_is_not_a_use_of_a_member(tmp_path: Path) -> None:
    files = {
        "tags.py": "class Tag:\n    @property\n    def platform(self):\n        return self._platform\n",
        "markers.py": "import platform\n\nSYSTEM = platform.system()\n",
        "users.py": "from tags import Tag\n\ndef plat(tag: Tag, platform=None):\n    return tag.platform\n",
        "Other.java": "class Other extends Tag {\n    String p() { return platform(); }\n}\n",
        "version.py": "from dataclasses import dataclass\n\n@dataclass\nclass Version:\n    minor: int\n",
        "bump.py": "from version import Version\n\nminor = 1\nv = Version(\n    minor=minor + 1,\n)\n",
        "web/tag.ts": "export class Tag {\n  platform: string = '';\n}\n",
        "web/make.ts": "import platform from 'os';\nconst t = { platform: 'x' };\nconst p = platform;\n",
    }
    explorer = explorer_over(tmp_path, files)
    report = analyze_impact(explorer, ["tags.py"], ["platform"])
    listed = {(i["file"], i["line"]) for group in ("dependents", "tests") for i in report.get(group, [])}
    assert ("users.py", 4) in listed and ("Other.java", 2) in listed  # Java may call an inherited method bare
    assert not any(file == "markers.py" for file, _ in listed) and ("users.py", 3) not in listed  # a parameter
    assert any("platform: " in n and "write the name without an object or type" in n for n in report["notes"])
    # a keyword argument or an object literal may build the member's object: kept
    fields = analyze_impact(explorer, ["version.py"], ["minor"])
    listed = {(i["file"], i["line"]) for i in fields.get("dependents", [])}
    assert ("bump.py", 5) in listed and ("bump.py", 3) not in listed
    web = analyze_impact(explorer, ["web/tag.ts"], ["platform"])
    listed = {(i["file"], i["line"]) for i in web.get("dependents", [])}
    assert ("web/make.ts", 2) in listed and ("web/make.ts", 1) not in listed and ("web/make.ts", 3) not in listed


def test_the_reference_lookups_share_the_call_s_time_budget(explorer: Explorer,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookup runs on a thread pool; it must count against analyze_impact's own deadline, not open a
    fresh budget of its own (which let the call run for many times its budget and lost their partial notes)."""
    from code_intel.explore import budget

    seen: list[Any] = []
    real = explorer.find_references_many

    def find_references_many(symbols: list[str], **kwargs: Any) -> Any:
        seen.append(budget.current())
        return real(symbols, **kwargs)

    monkeypatch.setattr(explorer, "find_references_many", find_references_many)
    with budget.budget(30) as deadline:
        impact_report(explorer, ["app/config.py"], None, document_search=DOCS)
    assert len(seen) == 1 and seen[0] is deadline


def test_a_name_asked_about_lists_its_other_uses_in_the_changed_file(explorer: Explorer) -> None:
    asked = analyze_impact(explorer, ["app/config.py"], ["parse_config"], document_search=DOCS)
    same_file = {(i["file"], i["line"]): i["reason"] for i in asked["dependents"] if i["file"] == "app/config.py"}
    # load_settings calls parse_config: a signature change must keep it working. The definition itself is direct.
    assert same_file == {("app/config.py", 9): "calls parse_config (in a file being changed)"}
    outline = analyze_impact(explorer, ["app/config.py"], None, document_search=DOCS)
    assert not [i for i in outline["dependents"] if i["file"] == "app/config.py"]  # the whole file is the change


ITERTOOLS_LIKE = {
    "pkg/__init__.py": "from .more import *\n",
    "pkg/more.py": (
        "def ilen(iterable):\n"  # 1
        "    return sum(1 for _ in iterable)\n"  # 2
        "\n"  # 3
        "\n"  # 4
        "def run_length(groups):\n"  # 5
        "    return [ilen(g) for g in groups]\n"  # 6
    ),
    "pkg/more.pyi": "from typing import Iterable\n\ndef ilen(iterable: Iterable[object]) -> int: ...\n",
    "pkg/other.py": "def helper():\n    return 1\n",
    "pkg/other.pyi": "def helper() -> int: ...\n",
    "web/fmt.js": "export function pad(s) {\n  return ' ' + s;\n}\n",
    "web/fmt.d.ts": "export declare function pad(s: string): string;\n",
    "docs/api.rst": (
        "API\n"  # 1
        "===\n"  # 2
        "\n"  # 3
        ".. autofunction:: ilen\n"  # 4
        "\n"  # 5
        "Call ``ilen(it)`` to count, or pkg.ilen on anything.\n"  # 6
        "The ilen of a stream is its length, in prose.\n"  # 7
        "See `ilen` too.\n"  # 8
    ),
    "docs/notes.txt": "run_length groups ilen() calls.\n",
    "docs/readme.adoc": "= Readme\n\nNothing about it here.\n",
}


def test_type_stubs_and_restructuredtext_docs_are_part_of_the_impact(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, ITERTOOLS_LIKE)
    report = analyze_impact(explorer, ["pkg/more.py"], ["ilen"])  # the default document patterns
    stub = {(i["file"], i["line"]): i["reason"] for i in report["should_verify"]}
    assert stub == {("pkg/more.pyi", 3): "type stub of pkg/more.py: keep ilen's declaration in step"}
    # A plain word is searched in the docs only where it is written as code: a directive, backticks, a call,
    # a dotted use. The prose line 7 is not a mention.
    docs = {(i["file"], i["line"]) for i in report["docs"]}
    assert docs == {("docs/api.rst", 4), ("docs/api.rst", 6), ("docs/api.rst", 8), ("docs/notes.txt", 1)}
    assert all(i["symbol"] == "ilen" for i in report["docs"])
    assert any("searched in docs only where written as code" in n for n in report["notes"])
    assert ("pkg/more.py", 6) in places(report["dependents"])  # run_length's call, in the changed file

    # With no names asked, every changed file with a stub beside it gets the stub listed once.
    whole = analyze_impact(explorer, ["pkg/other.py", "web/fmt.js"], None)
    listed = {i["file"]: i["reason"] for i in whole["should_verify"]}
    assert listed["pkg/other.pyi"].startswith("type stub of pkg/other.py")
    assert listed["web/fmt.d.ts"].startswith("type stub of web/fmt.js")
    assert len(whole["should_verify"]) == len(listed)
    # A stub that is itself among the changed files is the change, not its impact.
    both = analyze_impact(explorer, ["pkg/other.py", "pkg/other.pyi"], None)
    assert not [i for i in both["should_verify"] if i["file"] == "pkg/other.pyi"]


@pytest.mark.parametrize(("line", "found"), [
    (".. autofunction:: ilen", "ilen"), ("use `ilen` here", "ilen"), ("mi.ilen(x)", "ilen"), ("ilen (x)", "ilen"),
    ("the ilen of it", None), ("ilenx()", None), ("`ilenx`", None), ("parse_config here", "parse_config"),
])
def test_the_mention_pattern_marks_plain_words_as_code(line: str, found: str | None) -> None:
    import re

    m = re.search(impact.mention_pattern(["parse_config"], ["ilen"]), line)
    assert (m.group(m.lastgroup or 0) if m else None) == found


HIERARCHY = {
    "shapes/base.py": "class Shape:\n    def area(self):\n        return 0\n",
    "shapes/circle.py": "from shapes import base\n\n\nclass Circle(base.Shape):\n    def area(self):\n        return 3\n",
    "shapes/square.py": ("from shapes.rect import Rect\n\n\nclass Square(Rect, metaclass=type):\n"
                         "    def area(self):\n        return 4\n"),
    "shapes/rect.py": "from shapes.base import Shape\n\n\nclass Rect(Shape):\n    pass\n",
    "reports/report.py": "class Report:\n    def area(self):\n        return 'north'\n",
    "src/Named.java": "package demo;\n\ninterface Named {\n    String greeting();\n}\n",
    "src/Greeter.java": "package demo;\n\nclass Greeter extends Object implements Comparable<Greeter>, Named {\n"
                        "    public String greeting() { return \"g\"; }\n    public int compareTo(Greeter o) { return 0; }\n}\n",
}


def test_other_definitions_are_told_apart_by_the_class_hierarchy(tmp_path: Path) -> None:
    """Changing a base method lists its overrides, also two levels down (Square -> Rect -> Shape) and through a
    Java interface; a method of the same name in an unrelated class says no inheritance was found."""
    explorer = explorer_over(tmp_path, HIERARCHY)
    report = analyze_impact(explorer, ["shapes/base.py"], ["area"])
    reasons = {i["file"]: i["reason"] for i in report["should_verify"]}
    assert reasons["shapes/circle.py"].startswith("overrides Shape.area (Circle inherits from Shape)")
    assert reasons["shapes/square.py"].startswith("overrides Shape.area (Square inherits from Shape)")
    assert reasons["reports/report.py"] == ("another definition of area (override, shadow or namesake), in Report: "
                                            "the index finds no inheritance between Report and Shape")
    java = analyze_impact(explorer, ["src/Named.java"], ["greeting"])
    assert [i["reason"] for i in java["should_verify"]] == [
        "overrides Named.greeting (Greeter inherits from Named): a call through Named can run it, so it must keep the "
        "changed contract"]


def test_changing_an_override_points_at_the_method_it_overrides(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, HIERARCHY)
    report = analyze_impact(explorer, ["shapes/circle.py"], ["area"])
    reasons = {i["file"]: i["reason"] for i in report["should_verify"]}
    assert reasons["shapes/base.py"] == "Circle.area overrides this one (Circle inherits from Shape): keep the two compatible"
    assert "no inheritance between Report and Circle" in reasons["reports/report.py"]
    assert reasons["shapes/square.py"].startswith("another definition of area")  # a sibling, not a base or subclass


RUST_TRAITS = {
    "src/shape.rs": ("pub trait Shape: Clone + std::fmt::Debug {\n    fn area(&self) -> f64;\n"
                     "    fn name(&self) -> &str {\n        \"shape\"\n    }\n}\n"),
    "src/circle.rs": ("use crate::shape::Shape;\n\n#[derive(Clone, Debug)]\npub struct Circle;\n\n"
                      "impl Shape for Circle {\n    fn area(&self) -> f64 {\n        3.0\n    }\n\n"
                      "    fn name(&self) -> &str {\n        \"circle\"\n    }\n}\n"),
    "src/report.rs": "pub struct Report;\n\nimpl Report {\n    pub fn area(&self) -> f64 {\n        0.0\n    }\n}\n",
    "src/main.rs": ("fn main() {\n    let c = Circle;\n    println!(\"{}\", c.area());\n"
                    "    println!(\"{}\", Report::area(&Report));\n}\n"),
}


def test_rust_trait_implementations_are_told_apart_from_namesakes(tmp_path: Path) -> None:
    """`impl Shape for Circle` makes Circle's area an implementation of the trait's; Report's inherent area is a
    namesake. Asked for as `Shape::area`, the namesake and its `Report::area(...)` call are left out (and said so)."""
    explorer = explorer_over(tmp_path, RUST_TRAITS)
    plain = analyze_impact(explorer, ["src/shape.rs"], ["area"])
    assert explorer.definition_index.ancestors("Circle") == {"Shape", "Clone", "Debug"}
    reasons = {i["file"]: i["reason"] for i in plain["should_verify"]}
    assert reasons["src/circle.rs"].startswith("overrides Shape.area (Circle implements Shape)")
    assert reasons["src/report.rs"].endswith("the index finds no inheritance between Report and Shape")
    qualified = analyze_impact(explorer, ["src/shape.rs"], ["Shape::area"])
    assert [i["file"] for i in qualified["should_verify"]] == ["src/circle.rs"]
    uses = [(i["file"], i["line"]) for i in qualified["dependents"] if not i["reason"].startswith("imports")]
    assert uses == [("src/main.rs", 3)]  # c.area(): may be Circle's
    assert [i["file"] for i in qualified["dependents"] if i["reason"] == "imports src/shape.rs"] == ["src/circle.rs"]
    assert any("namesakes in Report" in note for note in qualified["notes"])
    changed_override = analyze_impact(explorer, ["src/circle.rs"], ["Circle::name"])
    assert {i["file"]: i["reason"] for i in changed_override["should_verify"]}["src/shape.rs"] == (
        "Circle.name overrides this one (Circle implements Shape): keep the two compatible")


def test_a_qualified_symbol_keeps_to_its_type_among_namesakes_in_the_same_file(tmp_path: Path) -> None:
    """Four types implement from_str in one file; `Version::from_str` is the one changed: it alone is direct, and
    `VersionReq::from_str(...)` is not among its dependents."""
    from tests.explore.test_find_references import RUST_SHARED_NAMES

    explorer = explorer_over(tmp_path, RUST_SHARED_NAMES)
    report = analyze_impact(explorer, ["src/parse.rs"], ["Version::from_str"])
    assert [(i["file"], i["line"]) for i in report["direct"]] == [("src/parse.rs", 8)]
    assert {(i["file"], i["line"], i["reason"]) for i in report["dependents"]} == {
        ("src/lib.rs", 10, "calls from_str"), ("src/lib.rs", 1, "imports src/parse.rs"),
        ("src/lib.rs", 3, "imports src/parse.rs")}
    assert report["should_verify"] == []
    both = analyze_impact(explorer, ["src/parse.rs"], ["Version::from_str", "from_str"])  # the bare name too: all
    assert len(both["direct"]) == 2 and len(both["dependents"]) == 4


def test_the_followed_names_are_searched_in_one_pass_with_the_same_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """analyze_impact follows dozens of names: one rg pass over the tree finds them all (on sympy's basic.py 40
    passes took most of 10 s), and each name's references are what find_references alone answers."""
    from code_intel.explore import references

    explorer = explorer_over(tmp_path, {
        "pkg/shapes.py": "class Shape:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n"
                         "        return k\n\n\ndef make_shape():\n    return Shape()\n",
        "pkg/use.py": "from pkg.shapes import Shape, make_shape\n\n# make_shape in a comment\n"
                      "s = make_shape(); a = s.area() + Shape().scale(2)\nprint(s.area(), 'area')\n",
        "pkg/other.py": "class Circle:\n    def area(self):\n        return 3\n",
    })
    names = ["Shape", "make_shape", "Shape.area", "scale"]
    alone = {name: explorer.find_references(name).model_dump() for name in names}
    searches: list[list[str]] = []
    real = references.run_rg_json

    def counted(cwd: Path, patterns: list[str], *args: Any, **kwargs: Any) -> Any:
        searches.append(patterns)
        return real(cwd, patterns, *args, **kwargs)

    monkeypatch.setattr(references, "run_rg_json", counted)
    together = explorer.find_references_many(names)
    assert {name: found.model_dump() for name, found in together.items()} == alone
    searches.clear()
    report = impact_report(explorer, ["pkg/shapes.py"], None)
    assert len(report.symbols) > 1 and len(searches) == 1
