"""cross_references through the real Explorer (ripgrep prefilter) on a small web project."""

from pathlib import Path

import pytest

from code_intel.core.errors import FileNotFound, PathOutsideProject
from code_intel.explore.markup import cross_references, find_cross_references
from code_intel.explore.service import Explorer
from tests.explore.conftest import explorer_over

WEB_FILES = {
    "static/site.css": (
        ".btn-primary { color: red; }\n"  # 1
        "#header { margin: 0 }\n"  # 2
        ".unused { }\n"  # 3
    ),
    "static/index.html": (
        "<html><body>\n"  # 1
        "<div id=\"header\" class=\"btn-primary wide\">Hi</div>\n"  # 2
        "<script src=\"app.js\"></script>\n"  # 3
        "</body></html>\n"
    ),
    "static/app.js": (
        "const h = document.getElementById('header');\n"  # 1
        "h.classList.add('btn-primary');\n"  # 2
        "$('.wide').hide();\n"  # 3
    ),
    "static/Widget.jsx": "export const W = () => (\n  <button className=\"btn-primary\">ok</button>\n);\n",
    "static/Panel.vue": "<template>\n  <div :class=\"{ 'btn-primary': on }\"></div>\n</template>\n",
    "static/theme.scss": ".card {\n  .wide { width: 100% }\n}\n",
    "notes/readme.md": "The .btn-primary class and #header id are documented here.\n",
    "src/tool.py": "BTN = 'btn-primary'\n",
}


@pytest.fixture
def explorer(tmp_path: Path) -> Explorer:
    return explorer_over(tmp_path, WEB_FILES)


def places(items: list[dict]) -> set[tuple[str, int, str]]:
    return {(i["file"], i["line"], symbol) for i in items for symbol in i.get("symbols", [i["symbol"]])}


def test_changing_a_stylesheet_lists_markup_and_scripts_using_its_names(explorer: Explorer) -> None:
    items = cross_references(explorer, "static/site.css")
    assert places(items) == {
        ("static/index.html", 2, "#header"), ("static/index.html", 2, ".btn-primary"),
        ("static/app.js", 1, "#header"), ("static/app.js", 2, ".btn-primary"),
        ("static/Widget.jsx", 2, ".btn-primary"), ("static/Panel.vue", 2, ".btn-primary"),
    }
    reasons = {(i["file"], i["line"]): i["reason"] for i in items}
    assert reasons[("static/index.html", 2)] == "uses #header, .btn-primary, styled in static/site.css"
    assert reasons[("static/app.js", 1)] == "selects #header, styled in static/site.css"
    assert len([i for i in items if i["file"] == "static/index.html"]) == 1  # one item per line


def test_cross_references_are_capped(explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("code_intel.explore.markup.MAX_CROSS_REFERENCES", 2)
    items, truncated = find_cross_references(explorer, "static/site.css")
    assert len(items) == 2 and truncated


def test_changing_markup_lists_the_styles_and_dom_code_of_its_names(explorer: Explorer) -> None:
    items = cross_references(explorer, "static/index.html")
    assert places(items) == {
        ("static/site.css", 1, ".btn-primary"), ("static/site.css", 2, "#header"),
        ("static/theme.scss", 2, ".wide"),
        ("static/app.js", 1, "#header"), ("static/app.js", 2, ".btn-primary"), ("static/app.js", 3, ".wide"),
    }
    by_file = {(i["file"], i["symbol"]): i["reason"] for i in items}
    assert by_file[("static/site.css", "#header")] == "styles #header, used in static/index.html"
    assert by_file[("static/app.js", ".wide")] == "selects .wide through the DOM, used in static/index.html"


def test_changing_a_script_lists_styles_and_markup_of_what_it_selects(explorer: Explorer) -> None:
    items, truncated = find_cross_references(explorer, "static/app.js")
    assert not truncated
    found = places(items)
    assert ("static/site.css", 2, "#header") in found
    assert ("static/theme.scss", 2, ".wide") in found
    assert ("static/index.html", 2, ".wide") in found
    assert all(f not in ("notes/readme.md", "src/tool.py") for f, _, _ in found)


def test_non_web_files_have_no_cross_references(explorer: Explorer) -> None:
    assert cross_references(explorer, "src/tool.py") == []


def test_paths_are_confined_and_must_exist(explorer: Explorer) -> None:
    with pytest.raises(PathOutsideProject):
        cross_references(explorer, "../outside.css")
    with pytest.raises(FileNotFound):
        cross_references(explorer, "static/missing.css")
