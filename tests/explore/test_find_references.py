from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.explore.service import Explorer
from tests.explore.conftest import explorer_over


def _sites(explorer: Explorer, **kwargs: object) -> set[tuple[str, int, str]]:
    result = explorer.find_references("helper", max_results=1000, **kwargs)  # type: ignore[arg-type]
    return {(r.file, r.line, r.context) for r in result.references}


def test_code_hits_only_by_default_in_every_language(explorer: Explorer) -> None:
    sites = _sites(explorer)
    assert all(context == "code" for _, _, context in sites)
    files = {f for f, _, _ in sites}
    assert files == {
        "src/app/greeter.py", "src/app/uses.py", "web/greeter.js", "web/util.ts", "web/view.tsx", "go/greeter.go",
        "rust/lib.rs", "java/Greeter.java", "c/greeter.c", "cpp/greeter.cpp", "ruby/greeter.rb", "php/Greeter.php",
        "kotlin/Greeter.kt",
    }
    # the docstring, the "# helper" comment and the string literal in greeter.py are left out
    assert {line for f, line, _ in sites if f == "src/app/greeter.py"} == {14, 20, 24}


def test_interpolated_code_inside_strings_counts_as_code(explorer: Explorer) -> None:
    sites = _sites(explorer)
    assert ("src/app/greeter.py", 14, "code") in sites  # f"{helper(name)} and helper"
    assert ("web/greeter.js", 6, "code") in sites


def test_comments_and_strings_on_request(explorer: Explorer) -> None:
    sites = _sites(explorer, include_comments=True, include_strings=True)
    assert ("src/app/greeter.py", 1, "string") in sites  # docstring
    assert ("src/app/greeter.py", 13, "comment") in sites
    assert ("c/greeter.c", 11, "comment") in sites
    assert ("ruby/greeter.rb", 17, "string") in sites
    assert ("docs/notes.md", 1, "comment") in sites  # prose counts as comment
    only_comments = _sites(explorer, include_comments=True)
    assert not any(context == "string" for _, _, context in only_comments)


def test_the_answer_counts_the_hits_it_left_out(explorer: Explorer) -> None:
    everything = explorer.find_references("helper", max_results=1000, include_comments=True, include_strings=True)
    assert everything.left_out is None  # nothing left out
    comments = sum(r.context == "comment" for r in everything.references)
    strings = sum(r.context == "string" for r in everything.references)
    assert comments and strings
    default = explorer.find_references("helper", max_results=1000)
    assert default.left_out is not None
    assert (default.left_out.comments, default.left_out.strings) == (comments, strings)
    assert "include_comments=true and include_strings=true" in default.left_out.hint
    with_comments = explorer.find_references("helper", max_results=1000, include_comments=True)
    assert with_comments.left_out is not None
    assert (with_comments.left_out.comments, with_comments.left_out.strings) == (0, strings)
    assert "include_comments" not in with_comments.left_out.hint
    assert default.total + comments + strings == everything.total


def test_definition_sites_are_marked(explorer: Explorer) -> None:
    refs = explorer.find_references("helper", max_results=1000).references
    definitions = {(r.file, r.line) for r in refs if r.is_definition}
    assert definitions == {
        ("src/app/greeter.py", 24), ("web/util.ts", 10), ("web/view.tsx", 4), ("go/greeter.go", 18),
        ("rust/lib.rs", 13), ("java/Greeter.java", 14), ("c/greeter.c", 8), ("cpp/greeter.cpp", 9),
        ("ruby/greeter.rb", 16), ("php/Greeter.php", 14), ("kotlin/Greeter.kt", 15),
    }


def test_columns_path_and_language_filters(explorer: Explorer) -> None:
    refs = explorer.find_references("helper", path="src/app/uses.py").references
    assert [(r.line, r.column) for r in refs] == [(1, 25), (3, 10)]
    go_only = explorer.find_references("helper", language="go").references
    assert {r.file for r in go_only} == {"go/greeter.go"}
    with pytest.raises(InvalidArgument, match="unknown language"):
        explorer.find_references("helper", language="cobol-2000")


def test_qualified_name_looks_up_the_last_part(explorer: Explorer) -> None:
    refs = explorer.find_references("Greeter.greet", path="src").references
    assert [(r.file, r.line, r.is_definition) for r in refs] == [("src/app/greeter.py", 12, True)]


def test_truncation_keeps_the_total(explorer: Explorer) -> None:
    result = explorer.find_references("helper", max_results=2)
    assert len(result.references) == 2 and result.truncated is True and result.total > 2


def test_whole_words_only(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "a.py").write_text("helper_x = 1\nx_helper = helper\nself.helper()\n", encoding="utf-8")
    refs = make_explorer(project_dir).find_references("helper").references
    assert [(r.line, r.column) for r in refs] == [(2, 12), (3, 6)]


def test_refusals(explorer: Explorer) -> None:
    for bad in ("", "two words", "--files", "a+b"):
        with pytest.raises(InvalidArgument):
            explorer.find_references(bad)
    with pytest.raises(PathOutsideProject):
        explorer.find_references("helper", path="../")


def test_edits_are_seen_and_maps_persist(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    target = project_dir / "m.py"
    target.write_text("# token\nvalue = token\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    assert [(r.line, r.context) for r in explorer.find_references("token").references] == [(2, "code")]
    target.write_text('token = 1\ntext = "token"\nprint(token)\n', encoding="utf-8")
    refs = explorer.find_references("token").references
    assert [(r.line, r.is_definition) for r in refs] == [(1, True), (3, False)]
    assert explorer.lexical.cache_path.exists()
    again = make_explorer(project_dir)  # a new server answers from the saved maps
    assert [(r.line, r.is_definition) for r in again.find_references("token").references] == [(1, True), (3, False)]


def test_dollar_names_and_macros(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "a.js").write_text("const $el = el;\nel.focus();\nconst el$ = 1;\n", encoding="utf-8")
    (project_dir / "b.c").write_text("#define CALL(x) run(el)\nint el = 0;\n", encoding="utf-8")
    refs = make_explorer(project_dir).find_references("el").references
    assert sorted((r.file, r.line) for r in refs) == [("a.js", 1), ("a.js", 2), ("b.c", 1), ("b.c", 2)]


def test_non_utf8_and_binary_files(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "latin.py").write_bytes("s = 'caf\xe9'; token = 1  # token\n".encode("latin-1"))
    (project_dir / "blob.py").write_bytes(b"token = 1\x00\x00\x00")
    refs = make_explorer(project_dir).find_references("token", include_comments=True).references
    assert [(r.file, r.column, r.context) for r in refs] == [("latin.py", 13, "code"), ("latin.py", 26, "comment")]


def test_definitions_are_marked_while_the_index_is_busy(explorer: Explorer) -> None:
    index = explorer.definition_index
    with index._refresh_lock:  # as during a background build of a large project
        result: list[tuple[str, int]] = []
        worker = threading.Thread(target=lambda: result.extend(
            (r.file, r.line) for r in explorer.find_references("helper", path="src").references if r.is_definition))
        worker.start()
        worker.join(timeout=30)
    assert result == [("src/app/greeter.py", 24)]


JAVA_SHARED_NAME = {
    "src/Element.java": """package demo;

public class Element {
    public boolean hasClass(String name) { return name.isEmpty(); }

    @Check(hasClass = true)
    public Element copy() { return this; }
}
""",
    "src/ElementTest.java": """package demo;

import java.util.function.Predicate;

class ElementTest {
    void hasClassWorks(Element el) {
        boolean hasClass = el.hasClass("a");
        assertTrue(hasClass);
        hasClass = el
            .hasClass ("b");
        Predicate<String> p = el::hasClass;
    }
}
""",
    "src/Check.java": "package demo;\n\n@interface Check { boolean hasClass(); }\n",
}


def test_java_field_or_variable_sharing_a_methods_name_is_counted_not_listed(tmp_path: Path) -> None:
    """Java keeps methods apart from fields and variables: `boolean hasClass = el.hasClass(...)` holds one use of the
    method, and the variable's own hits are counted in left_out.other_names."""
    explorer = explorer_over(tmp_path, JAVA_SHARED_NAME)
    result = explorer.find_references("hasClass", max_results=100)
    sites = {(r.file, r.line, r.column) for r in result.references}
    assert sites == {
        ("src/Element.java", 4, 20),  # declaration
        ("src/Element.java", 6, 12),  # annotation element
        ("src/ElementTest.java", 7, 31), ("src/ElementTest.java", 10, 14),  # calls, one split over two lines
        ("src/ElementTest.java", 11, 35),  # method reference
        ("src/Check.java", 3, 28),  # the annotation element's declaration
    }
    assert result.left_out is not None
    assert result.left_out.other_names == 3  # the variable: declared, read, assigned
    assert "field or variable" in result.left_out.hint and "search_text" in result.left_out.hint


def test_java_name_that_is_also_a_field_keeps_every_hit(tmp_path: Path) -> None:
    """`size` is a field and a method here: no hit can be told apart by its shape, so all are listed."""
    source = ("package demo;\n\nclass Bag {\n    private int size;\n    int size() { return size; }\n"
              "    boolean isEmpty() { return size() == 0 && size == 0; }\n}\n")
    explorer = explorer_over(tmp_path, {"Bag.java": source})
    result = explorer.find_references("size", max_results=100)
    assert len(result.references) == 5
    assert result.left_out is None


def test_a_qualified_symbol_names_the_namesakes_its_hits_may_belong_to(tmp_path: Path) -> None:
    """Hits are matched by name: for `Element.hasClass` the answer says that Elements defines a hasClass of its
    own (unrelated by inheritance), while a subclass's override and a plain name give no namesakes. The namesake's
    definition and a use written through its type (`Elements.hasClass`) are counted, not listed; a use through a
    variable (`es.hasClass`) cannot be told apart and stays."""
    files = {
        "Element.java": "class Element {\n    boolean hasClass(String c) { return true; }\n}\n",
        "Elements.java": "class Elements {\n    static boolean hasClass(String c) { return false; }\n}\n",
        "Special.java": "class Special extends Element {\n    boolean hasClass(String c) { return false; }\n}\n",
        "Use.java": ("class Use {\n    boolean f(Element e, Elements es) { return e.hasClass(\"a\") && es.hasClass(\"b\"); }\n"
                     "    boolean g() { return Elements.hasClass(\"c\") || Element.class != null; }\n}\n"),
    }
    explorer = explorer_over(tmp_path, files)
    qualified = explorer.find_references("Element.hasClass")
    assert qualified.namesakes == ["Elements.java:2 Elements.hasClass"]
    assert {(r.file, r.line, r.column) for r in qualified.references} == {
        ("Element.java", 2, 13), ("Special.java", 2, 13), ("Use.java", 2, 50), ("Use.java", 2, 70)}
    assert qualified.left_out is not None and qualified.left_out.namesake_hits == 2
    assert "namesake" in qualified.left_out.hint
    assert explorer.find_references("Special.hasClass").namesakes == ["Elements.java:2 Elements.hasClass"]
    plain = explorer.find_references("hasClass")
    assert plain.namesakes is None and len(plain.references) == 6 and plain.left_out is None


RUST_SHARED_NAMES = {
    "src/lib.rs": """mod parse;

pub use crate::parse::Error;

pub struct Version;
pub struct VersionReq;

impl Version {
    pub fn parse(text: &str) -> Result<Self, Error> {
        Version::from_str(text)
    }
}

impl VersionReq {
    pub fn parse(text: &str) -> Result<Self, Error> {
        VersionReq::from_str(text)
    }
}

impl Version {
    pub fn reparse(&self, text: &str) -> Result<Self, Error> {
        Self::parse(text)
    }
}
""",
    "src/parse.rs": """use std::str::FromStr;

pub struct Error;

impl FromStr for Version {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Version)
    }
}

impl FromStr for VersionReq {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(VersionReq)
    }
}
""",
    "tests/util.rs": """use semver::{Version, VersionReq};

pub fn version(text: &str) -> Version {
    Version::parse(text).unwrap()
}

pub fn req(text: &str) -> VersionReq {
    VersionReq::parse(text).unwrap()
}

pub fn number(cfg: &Config, text: &str) -> u8 {
    let parsed = text.parse::<u8>().unwrap_or(cfg.parse);
    parse!(text);
    Config::parse(text).unwrap()
}
""",
}


def test_rust_qualified_function_leaves_out_modules_macros_fields_and_namesakes(tmp_path: Path) -> None:
    """`Version::parse`: the module `parse` (its declaration and its paths), a macro and a field of that name are
    written differently from the function and are counted as other_names, as are method calls `text.parse()`:
    Version::parse takes no self, so only a path can call it. VersionReq's parse (its definition and
    `VersionReq::parse(...)`) is a namesake's, and `Config::parse` goes through a type the project does not
    define; `Self::parse` inside `impl Version` stays."""
    explorer = explorer_over(tmp_path, RUST_SHARED_NAMES)
    result = explorer.find_references("Version::parse")
    assert result.namesakes == ["src/lib.rs:15 VersionReq.parse"]
    listed = {(r.file, r.line): r.is_definition for r in result.references}
    assert listed == {("src/lib.rs", 9): True, ("src/lib.rs", 22): False, ("tests/util.rs", 4): False}
    assert result.left_out is not None
    # mod parse; crate::parse::Error; text.parse::<u8>(); cfg.parse; parse!(...)
    assert result.left_out.other_names == 5
    assert result.left_out.namesake_hits == 3  # VersionReq's definition, VersionReq::parse(...), Config::parse(...)
    # the bare name is the module too: every hit stays
    plain = explorer.find_references("parse")
    assert len(plain.references) == 11 and plain.left_out is None and plain.namesakes is None


def test_rust_method_with_self_keeps_method_calls_and_its_traits_paths(tmp_path: Path) -> None:
    """A method that takes self can be called as `x.area()`; `Shape::area(&c)` goes through the trait Circle
    implements and `Circle::area` through the type itself, so both stay, while `Report::area` is a namesake's."""
    files = {
        "src/lib.rs": ("pub trait Shape {\n    fn area(&self) -> f64;\n}\n\npub struct Circle;\n\n"
                       "impl Shape for Circle {\n    fn area(&self) -> f64 {\n        3.0\n    }\n}\n\n"
                       "pub struct Report;\n\nimpl Report {\n    pub fn area(&self) -> f64 {\n        0.0\n    }\n}\n"),
        "src/main.rs": ("fn main() {\n    let c = Circle;\n    c.area();\n    Shape::area(&c);\n    Circle::area(&c);\n"
                        "    Report::area(&Report);\n}\n"),
    }
    explorer = explorer_over(tmp_path, files)
    result = explorer.find_references("Circle::area")
    assert {(r.file, r.line) for r in result.references if r.file == "src/main.rs"} == {
        ("src/main.rs", 3), ("src/main.rs", 4), ("src/main.rs", 5)}
    assert result.left_out is not None and result.left_out.namesake_hits == 2 and result.left_out.other_names == 0


@pytest.mark.parametrize(("line", "is_function"), [
    ("let v = parse(text);", True), ("Version::parse(text)", True), ("text.parse::<u8>()", True),
    ("x.parse ()", True), ("map(Version::parse)", True), ("fn parse(text: &str)", True),
    ("use crate::parse::Error;", False), ("mod parse;", False), ("pub mod parse {", False),
    ("parse!(x)", False), ("self.parse", False), ("cfg.parse + 1", False), ("parse != 0", True),
])
def test_rust_shapes_of_a_function_name(line: str, is_function: bool) -> None:
    from code_intel.explore.references import _names_the_rust_function

    raw = line.encode()
    start = raw.index(b"parse")
    assert _names_the_rust_function(raw, start, start + len(b"parse")) is is_function
