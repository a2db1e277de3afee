"""What a file is for, from its path alone: implementation, test, doc or generated.

Search results carry the role so an agent sees at once that a hit is a test or an example, and the
semantic ranking uses it: a question about how something works is answered by the implementation first,
while tests and docs stay findable below it (or first, when the question asks for them).
"""

from __future__ import annotations

import re
from collections.abc import Container
from pathlib import PurePosixPath
from typing import Literal

from code_intel.languages.table import CODE_LANGUAGES, language_for

Role = Literal["implementation", "test", "doc", "generated"]

# testutil/ and its kin: a project's helpers for its tests (kotlinx-coroutines' test-utils/, goyave's testutil/)
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "test_support", "testutil",
                          "testutils", "test-utils", "test_helpers", "testkit"})
# Gradle's and Kotlin Multiplatform's test source sets, a folder directly under src/: src/jvmTest/, src/commonTest/
_TEST_SOURCE_SET = re.compile(r"^[a-z][a-zA-Z0-9]*Test$")
# folders of test data and test-like code: not the code under test either (Gradle's src/testFixtures/: contract kits)
_TEST_DATA_FOLDERS = frozenset({"testdata", "fixtures", "__fixtures__", "__mocks__", "e2e", "benchmarks",
                                "benchmark", "bench", "testfixtures"})
_TEST_NAME = re.compile(
    r"^(?:test_.+\.py|.+_test\.py|conftest\.py|.+_test\.go|.+\.(?:test|spec|bench)\.[cm]?[jt]sx?|"
    r".+Tests?\.(?:java|kt|cs|swift)|.+_spec\.rb|.+_test\.rb|.+Test\.php|test_.+\.rb|.+_test\.exs|"
    r".+(?:Suite|Spec|Tests?)\.scala|.+Spec\.hs|"
    r".+_(?:unit)?test\.(?:c|cc|cpp|cxx)|test_.+\.(?:c|cc|cpp|cxx)|"  # C/C++: GoogleTest's str_cat_test.cc beside the code
    r".+_(?:spec|test)\.lua|.+\.bats|.+_test\.dart)$"  # busted specs, bats tests, Dart's package:test files
)
# C#'s test projects sit beside the library's own: src/MessagePack.Tests/, Foo.UnitTests/, Foo.Test/, and a `Tests/`
# folder; a bare folder in the singular is not one: Python's `unittest/` is the framework itself
_TEST_PROJECT = re.compile(r"(?:^|\.)(?:unit|integration)?tests$|\.(?:unit|integration)?test$", re.I)
# a benchmark beside the code it measures (abseil's str_split_benchmark.cc): test-like code, as in a bench/ folder
_BENCHMARK_NAME = re.compile(r"^.+_bench(?:mark)?\.(?:c|cc|cpp|cxx)$")
_DOC_FOLDERS = frozenset({"docs", "doc", "documentation", "examples", "example", "_examples", "demo", "demos",
                          "website", "site", "samples", "sample"})
# tutorial and example trees named after those folders: fastapi's docs_src/, docs-src/, examples_app/
_DOC_FOLDER_PREFIX = re.compile(r"^(?:docs?|documentation|examples?|samples?|tutorials?)[_-]")
_DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm"})
# README, LICENSE.txt, HISTORY.rst; in a language's own suffix it is code (a history.py of commands, a Changes.rb model)
_DOC_NAMES = re.compile(r"^(?:readme|changelog|changes|history|contributing|license|authors|news)(?:\..*)?$", re.I)
# Go's doc.go: by Go's convention a package's long documentation comment gets a file of its own, prose above the
# `package` clause and no code (gorilla/websocket's 200 lines on buffers and compression outranked the code they describe);
# Java's package-info.java is the same by Java's convention (commons-beanutils' 1,027 lines of Javadoc on dynamic beans)
_PACKAGE_DOCS = frozenset({"doc.go", "package-info.java"})
_GENERATED_NAME = re.compile(
    r"(?:\.pb\.go|_gen\.go|\.gen\.[jt]s|_pb2\.py|_pb2_grpc\.py|\.min\.js|\.d\.ts|\.generated\.\w+|\.lock|"
    r"^package-lock\.json|^go\.sum|^yarn\.lock|^pnpm-lock\.yaml)$")
_GENERATED_FOLDERS = frozenset({"vendor", "dist", "build", "node_modules", "third_party", "generated"})


def is_test_file(path: str, indexed: Container[str] = ()) -> bool:
    parts = PurePosixPath(path).parts
    # folders compared in lower case too: Swift packages keep their tests in `Tests/`, C# in `Foo.Tests/`
    return bool(_TEST_NAME.match(parts[-1])) or any(
        ((p.lower() in TEST_FOLDERS or _TEST_PROJECT.search(p)) and not _ruby_namespace(parts, i, indexed))
        or (i > 0 and parts[i - 1] == "src" and _TEST_SOURCE_SET.match(p))
        for i, p in enumerate(parts[:-1]))


def _ruby_namespace(parts: tuple[str, ...], i: int, indexed: Container[str]) -> bool:
    """Folder `parts[i]` holds a Ruby library's namespace: `rack/test.rb` requires `rack/test/*.rb`, which define
    `Rack::Test::CookieJar` and the rest of rack-test's code, not its tests (a gem ships them under lib/). Known only
    from the indexed files beside it (`indexed`: paths in the same form as `parts`)."""
    return parts[-1].endswith(".rb") and "/".join([*parts[:i], parts[i] + ".rb"]) in indexed


def _doc_folder(parts: tuple[str, ...], i: int, indexed: Container[str]) -> bool:
    """Folder `parts[i]` holds documentation or examples, unless it is a Ruby namespace (`lib/demo.rb` requires
    `lib/demo/*.rb`: a gem named demo keeps its code there)."""
    folder = parts[i].lower()
    return ((folder in _DOC_FOLDERS or bool(_DOC_FOLDER_PREFIX.match(folder)))
            and not _ruby_namespace(parts, i, indexed))


def file_role(path: str, indexed: Container[str] = ()) -> Role:
    """`indexed`: the project's indexed files, when the caller has them (a Ruby namespace folder named `test`)."""
    parts = PurePosixPath(path).parts
    if not parts:
        return "implementation"
    name, folders = parts[-1], {p.lower() for p in parts[:-1]}
    if _GENERATED_NAME.search(name) or folders & _GENERATED_FOLDERS:
        return "generated"
    if is_test_file(path, indexed) or folders & _TEST_DATA_FOLDERS or _BENCHMARK_NAME.match(name):
        return "test"
    doc_named = _DOC_NAMES.match(name) and language_for(name) not in CODE_LANGUAGES
    if (PurePosixPath(name).suffix.lower() in _DOC_SUFFIXES or doc_named or name in _PACKAGE_DOCS
            or any(_doc_folder(parts, i, indexed) for i in range(len(parts) - 1))):
        return "doc"
    return "implementation"
