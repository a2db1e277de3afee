"""Which failing tests a session is about.

At POST_IMPL_VERIFY a test that failed the same way before the change is not held against it
(tools.verify.models.failed_the_same_way), unless the session concerns that test: a request often asks
for exactly a failing test to pass, and a change that leaves it failing as before has not done that.
A test is concerned when the request names it, or when its name carries the name of a file changed in
the session or already changed when it started (`tests/test_app.py` and `test_app.py::test_add`,
`ElementTest.java` and `org.jsoup.nodes.ElementTest.parses`, `src/parse.rs` and `semver::parse::tests::x`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

# What separates the parts of a test name across runners: pytest's `::`, Java's dots, jest's `›`, vitest's `>`,
# paths' slashes, libtest's doc-test ` - `.
_PARTS = re.compile(r"::|[.›>/\\]| - ")
_PARAMETERS = re.compile(r"\s*(?:\[.*\]|\(\))$")  # pytest's [case], JUnit's ()
_WORDS = re.compile(r"\w+")
MIN_NAME = 4  # a shorter test name ("t", "ok") says too little to be looked for in a request
MIN_STEM = 3


def leaf_name(name: str) -> str:
    """The last part of a failing test's name: `test_app.py::test_add[1-2]` -> `test_add`."""
    parts = [part.strip() for part in _PARTS.split(name) if part.strip()]
    return _PARAMETERS.sub("", parts[-1] if parts else name.strip())


def concerned_tests(request: str, files: Iterable[str]) -> Callable[[str], bool]:
    """A test name -> whether the session concerns it: `request` is the session's query, `files` the
    project-relative files changed in the session or before it began."""
    text = request.casefold()
    stems = {stem for stem in (PurePosixPath(f).stem for f in files) if len(stem) >= MIN_STEM}

    def concerned(name: str) -> bool:
        leaf = leaf_name(name).casefold()
        if len(leaf) >= MIN_NAME and re.search(rf"(?<!\w){re.escape(leaf)}(?!\w)", text):
            return True
        return any(word in stems for word in _WORDS.findall(name))

    return concerned
