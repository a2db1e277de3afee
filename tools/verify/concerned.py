"""Which failing tests a session is about.

At POST_IMPL_VERIFY a test that failed the same way before the change is not held against it
(code_intel.verify.models.failed_the_same_way), unless the session concerns that test: a request often asks
for exactly a failing test to pass, and a change that leaves it failing as before has not done that.
A test is concerned when the request names it or describes it (most of the words of its title are in the
request: "off() with a handler that was never registered removes another handler" for jest's
`off removes only a registered handler`), or when its name carries the name or the path of a file
changed in the session or already changed when it started (`tests/test_app.py` and `test_app.py::test_add`,
`ElementTest.java` and `org.jsoup.nodes.ElementTest.parses`, `src/parse.rs` and `semver::parse::tests::x`,
`src/emitter.test.ts` and jest's `src/emitter.test.ts › on › calls the handler`). Each rule says why, for the
refusal's hint. code_intel.verify.exercised adds the tests whose own source calls a function the session changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from code_intel.index.text import ENGLISH_STOP_WORDS, STOP_WORDS, split_identifier, stem

# What separates the parts of a test name across runners: pytest's `::`, Java's dots, jest's `›`, vitest's `>`,
# paths' slashes, libtest's doc-test ` - `.
_PARTS = re.compile(r"::|[.›>/\\]| - ")
_PARAMETERS = re.compile(r"\s*(?:\[.*\]|\(\))$")  # pytest's [case], JUnit's ()
_WORDS = re.compile(r"\w+")
# A source file's path in a test's name (pytest's tests/test_app.py, jest's and vitest's src/x.test.ts, a doc test's
# src/lib.rs), told from Java's dotted names by its extension.
_PATH = re.compile(r"[^\s:›>()\[\]]+\.(?:py|[cm]?[jt]sx?|rs|go|java|kt|scala|groovy|rb|php|cs|swift|c|cc|cpp|cxx|h|hpp|m|mm)"
                   r"(?![\w.])")
# go test's names as the parser writes them: the package's import path, then the test (`example.com/calc::TestSub/x`)
_GO_NAME = re.compile(r"^(?P<package>[^\s:]+)::(?P<test>(?:Test|Benchmark|Example|Fuzz)(?![a-z])\S*)$")
MIN_NAME = 4  # a shorter test name ("t", "ok") says too little to be looked for in a request
MIN_STEM = 3
# A title is taken as described by the request when it has at least MIN_DESCRIBED distinct words that say something
# and at most a quarter of them are missing from the request.
MIN_DESCRIBED = 3
_TEST_WORDS = frozenset({"test", "tests", "spec", "should", "it", "case", "check", "checks", "verify", "ensure"})
_IGNORED = STOP_WORDS | ENGLISH_STOP_WORDS | _TEST_WORDS


def _words(text: str) -> set[str]:
    """The words of a title or request that say something, split out of identifiers and lightly stemmed."""
    return {stem(part) for word in _WORDS.findall(text) for part in split_identifier(word)
            if len(part) > 2 and part not in _IGNORED}


def named_paths(name: str) -> list[str]:
    """The source files' paths written in a test's name (`tests/test_app.py::test_add` -> `tests/test_app.py`)."""
    return [token.replace("\\", "/").removeprefix("./") for token in _PATH.findall(name)]


def names_file(name: str, path: str) -> bool:
    """Whether a path written in a test's name is the project-relative `path`, or its end (a runner started in a
    sub-folder prints paths from there)."""
    return any(path == token or path.endswith("/" + token) for token in named_paths(name))


def name_parts(name: str) -> list[str]:
    """The parts of a test's name as runners separate them (`tests/t.py::TestX::test_m` -> tests, t, py, TestX,
    test_m); a path keeps its parts too."""
    return [part.strip() for part in _PARTS.split(name) if part.strip()]


def go_test(name: str) -> tuple[str, str] | None:
    """A go test's package and test: `example.com/calc::TestSub/negative` -> (`example.com/calc`, `TestSub/negative`)."""
    match = _GO_NAME.match(name)
    return (match["package"], match["test"]) if match else None


def leaf_name(name: str) -> str:
    """The last part of a failing test's name: `test_app.py::test_add[1-2]` -> `test_add`; a number there is a case's
    index, not a name (GoogleTest's `Nums/ParamT.Positive/0`, a Go subtest `TestParse/1`), so the part before it."""
    parts = name_parts(name)
    while len(parts) > 1 and parts[-1].isdigit():
        parts.pop()
    return _PARAMETERS.sub("", parts[-1] if parts else name.strip())


# Why the session is about a test; None: it is not (as far as names tell).
Concern = Callable[[str], str | None]


def concerned_tests(request: str, files: Iterable[str]) -> Concern:
    """A test name -> why the session concerns it, or None: `request` is the session's query, `files` the
    project-relative files changed in the session or before it began."""
    text = request.casefold()
    asked = _words(request)
    paths = {f.replace("\\", "/").removeprefix("./") for f in files}
    stems = {stem for stem in (PurePosixPath(f).stem for f in paths) if len(stem) >= MIN_STEM}

    def concerned(name: str) -> str | None:
        leaf = leaf_name(name).casefold()
        if len(leaf) >= MIN_NAME and re.search(rf"(?<!\w){re.escape(leaf)}(?!\w)", text):
            return "the request names it"
        title = _words(leaf)
        if len(title) >= MIN_DESCRIBED and 4 * len(title - asked) <= len(title):
            return "the request describes it"
        go = go_test(name)
        own = go[1] if go else name  # a go test's package says where it is, not what it is about (gin's gin.go)
        named = named_paths(own)
        # a changed file's path, or its end (a runner started in a sub-folder prints paths from there)
        if any(f == token or f.endswith("/" + token) for token in named for f in paths):
            return "its file changed"
        # else a word of the name is a changed file's name; a path in it counts as its file name
        words = _WORDS.findall(_PATH.sub(" ", own)) + [PurePosixPath(token).stem for token in named]
        return "its file changed" if any(word in stems for word in words) else None

    return concerned
