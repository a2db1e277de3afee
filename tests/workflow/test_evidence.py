from __future__ import annotations

import pytest

from code_intel.core.errors import TaskValidationFailed
from code_intel.core.project import ProjectRoot
from code_intel.workflow.evidence import EvidenceRef, check_evidence, parse_evidence

SERVICE_PY = '''\
class Service:
    def real(self, x):
        """Double it."""
        return x * 2

    def stub(self, x):
        """Later."""
        # TODO: implement
        raise NotImplementedError

    def one_liner(self): return 42
'''


@pytest.fixture
def code_project(project: ProjectRoot) -> ProjectRoot:
    (project.path / "src").mkdir()
    (project.path / "src" / "service.py").write_text(SERVICE_PY, encoding="utf-8")
    (project.path / "a:b.py").write_text("x = compute()\n", encoding="utf-8")
    (project.path / "blob.py").write_bytes(b"x = 1\x00\x01\x02\n")
    return project


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("auth.py:42", EvidenceRef(path="auth.py", start=42, end=42)),
        ("src/auth.py:42-58", EvidenceRef(path="src/auth.py", start=42, end=58)),
        (" `src/auth.py:L42-L58` ", EvidenceRef(path="src/auth.py", start=42, end=58)),
        ("dir:with:colons/a.py:3", EvidenceRef(path="dir:with:colons/a.py", start=3, end=3)),
    ],
)
def test_parse_evidence_accepts_the_documented_forms(text: str, expected: EvidenceRef) -> None:
    assert parse_evidence(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("auth.py", "no line number"),
        ("auth.py:abc", "no line number"),
        ("auth.py:0", "start at 1"),
        ("auth.py:10-5", "ends (line 5) before it starts"),
        ("auth.py:1-3, b.py:4", "more than one location"),
        ("C:\\x.py:3", "Windows-style"),
        ("src\\x.py:3", "Windows-style"),
    ],
)
def test_parse_evidence_refuses_malformed_text(text: str, fragment: str) -> None:
    with pytest.raises(TaskValidationFailed) as err:
        parse_evidence(text)
    assert fragment in err.value.message
    assert err.value.hint


def test_check_evidence_accepts_real_code(code_project: ProjectRoot) -> None:
    assert str(check_evidence(code_project, "src/service.py:2-4")) == "src/service.py:2-4"
    assert str(check_evidence(code_project, "src/service.py:4")) == "src/service.py:4"
    assert str(check_evidence(code_project, "src/service.py:11")) == "src/service.py:11"
    # an absolute path inside the project is reported project-relative
    absolute = f"{code_project.path / 'src' / 'service.py'}:2-4"
    assert check_evidence(code_project, absolute).path == "src/service.py"
    assert check_evidence(code_project, "a:b.py:1").path == "a:b.py"


def test_check_evidence_judges_a_signature_line_with_its_body(code_project: ProjectRoot) -> None:
    assert check_evidence(code_project, "src/service.py:2").end == 2  # the def of a real body passes
    with pytest.raises(TaskValidationFailed, match="no implementation"):
        check_evidence(code_project, "src/service.py:6")  # the def of a stub is judged with its stub body


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("src/service.py:6-9", "no implementation"),
        ("src/service.py:7-8", "no implementation"),
        ("src/service.py:5", "no implementation"),  # a blank line
        ("src/service.py:4-99", "past the end"),
        ("src/missing.py:1", "does not exist"),
        ("src:1", "not a file"),
        ("blob.py:1", "binary"),
        ("../outside.py:1", "outside the project"),
        ("/etc/passwd:1", "outside the project"),
        (".git/config:1", "points into .git/"),
    ],
)
def test_check_evidence_refuses(code_project: ProjectRoot, text: str, fragment: str) -> None:
    (code_project.path / ".git").mkdir(exist_ok=True)
    (code_project.path / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    with pytest.raises(TaskValidationFailed) as err:
        check_evidence(code_project, text)
    assert fragment in err.value.message


def test_check_evidence_refuses_a_symlink_out_of_the_project(code_project: ProjectRoot) -> None:
    outside = code_project.path.parent / "secret.py"
    outside.write_text("token = read()\n", encoding="utf-8")
    (code_project.path / "link.py").symlink_to(outside)
    with pytest.raises(TaskValidationFailed, match="outside the project"):
        check_evidence(code_project, "link.py:1")


def test_check_evidence_judges_brace_blocks_from_their_header(project: ProjectRoot) -> None:
    (project.path / "main.go").write_text(
        "package main\n\nfunc Stub() error {\n\tpanic(\"not implemented\")\n}\n\nfunc Real() int {\n\treturn 1\n}\n",
        encoding="utf-8",
    )
    with pytest.raises(TaskValidationFailed, match="no implementation"):
        check_evidence(project, "main.go:3")
    assert check_evidence(project, "main.go:7").start == 7


@pytest.mark.parametrize(
    ("name", "source", "stub_line", "real_line"),
    [
        ("Shapes.kt", "package shapes\n\nfun area(r: Double): Double = TODO(\"later\")\n\nfun twice(x: Int) = x * 2\n", 3, 5),
        ("lib.rs", "pub fn load() -> Result<(), Error> {\n    // TODO: read the file\n    Ok(())\n}\n\n"
                   "pub fn add(a: i32, b: i32) -> i32 { a + b }\n", 1, 6),
        ("Calc.cs", "class Calc\n{\n    public int Sub(int a, int b) => throw new NotImplementedException();\n"
                    "    public int Add(int a, int b) => a + b;\n}\n", 3, 4),
    ],
)
def test_check_evidence_refuses_expression_and_tail_placeholders(
    project: ProjectRoot, name: str, source: str, stub_line: int, real_line: int
) -> None:
    (project.path / name).write_text(source, encoding="utf-8")
    with pytest.raises(TaskValidationFailed, match="no implementation"):
        check_evidence(project, f"{name}:{stub_line}")
    assert check_evidence(project, f"{name}:{real_line}").start == real_line


def test_check_evidence_follows_an_arrow_or_expression_body_onto_the_next_lines(project: ProjectRoot) -> None:
    (project.path / "util.ts").write_text(
        "export const double = (x: number): number =>\n  // doubled\n  x * 2\n\n"
        "export const handle =\n  (app: App) =>\n  (req: Request) =>\n    app.fetch(req)\n\n"
        "const shouldSkip = (\n  res: Response,\n  vary: string[]\n): boolean =>\n  res.ok && vary.length > 0\n\n"
        "export const later = (x: number): number =>\n  TODO()\n\n"
        "export const render = () =>\n  `<p>${name}</p>`\n",
        encoding="utf-8",
    )
    (project.path / "Area.kt").write_text("fun area(r: Double): Double =\n    TODO(\"later\")\n\nfun twice(x: Int): Int =\n    x * 2\n",
                                          encoding="utf-8")
    for line in (1, 5, 10, 19):  # each signature is judged with the expression after it
        assert check_evidence(project, f"util.ts:{line}").start == line
    assert check_evidence(project, "Area.kt:4").start == 4
    for stub in ("util.ts:16", "Area.kt:1"):
        with pytest.raises(TaskValidationFailed, match="no implementation"):
            check_evidence(project, stub)


STUB_PYI = '''\
from typing import Callable, Iterable, TypeVar

_T = TypeVar('_T')

def ilen(
    iterable: Iterable[_T], pred: Callable[[_T], object] | None = None
) -> int: ...
'''

SHAPES_PY = '''\
import abc
from typing import Protocol, overload


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self) -> float:
        """The area."""

    def stub(self) -> float:
        ...


class HasArea(Protocol):
    def area(self) -> float: ...


@overload
def scale(x: int) -> int: ...
@overload
def scale(x: float) -> float: ...
def scale(x):
    return x * 2
'''


def test_check_evidence_takes_python_declarations_as_code(project: ProjectRoot) -> None:
    (project.path / "pkg").mkdir()
    (project.path / "pkg" / "more.pyi").write_text(STUB_PYI, encoding="utf-8")
    (project.path / "pkg" / "shapes.py").write_text(SHAPES_PY, encoding="utf-8")
    # A type stub's signature is its whole content.
    assert str(check_evidence(project, "pkg/more.pyi:5-7")) == "pkg/more.pyi:5-7"
    # The same signature in a module is a placeholder.
    (project.path / "pkg" / "more_copy.py").write_text(STUB_PYI, encoding="utf-8")
    with pytest.raises(TaskValidationFailed, match="covers no implementation"):
        check_evidence(project, "pkg/more_copy.py:5-7")
    # The decorator above the span makes the def a declaration (the span itself starts at `def`).
    assert check_evidence(project, "pkg/shapes.py:7-8").start == 7
    # A plain method with `...` in the same class is still a stub.
    with pytest.raises(TaskValidationFailed, match="covers no implementation"):
        check_evidence(project, "pkg/shapes.py:10-11")
    # A member of a Protocol class, cited alone or with its class.
    assert check_evidence(project, "pkg/shapes.py:15").start == 15
    assert check_evidence(project, "pkg/shapes.py:14-15").start == 14
    # Overload signatures, and the implementation after them.
    assert check_evidence(project, "pkg/shapes.py:19").start == 19
    assert check_evidence(project, "pkg/shapes.py:18-23").start == 18


def test_a_declaring_decorator_does_not_excuse_a_stub_where_it_means_nothing(project: ProjectRoot) -> None:
    (project.path / "loose.py").write_text(
        "import abc\nfrom typing import overload\n\n\n"
        "class Plain:\n"  # 5: not an ABC, so @abstractmethod changes nothing at run time
        "    @abc.abstractmethod\n"
        "    def area(self) -> float:\n"
        "        ...\n"
        "\n\n"
        "@overload\n"  # 11: an overload with no implementation anywhere in the file
        "def scale(x: int) -> int: ...\n",
        encoding="utf-8")
    with pytest.raises(TaskValidationFailed, match="covers no implementation"):
        check_evidence(project, "loose.py:7-8")
    with pytest.raises(TaskValidationFailed, match="covers no implementation"):
        check_evidence(project, "loose.py:5-8")
    with pytest.raises(TaskValidationFailed, match="covers no implementation"):
        check_evidence(project, "loose.py:12")
