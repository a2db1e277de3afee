"""Every language's imports.scm, read by the one generic reader: what each statement imports, and nothing from a
comment or a string."""

from pathlib import Path

import pytest

from code_intel.explore.imports import read_imports
from code_intel.explore.syntax import ParseCache

CASES = {
    "a.py": ('import os, a.b as c\nfrom . import x\nfrom ..p import (y as z,\n w)\nfrom m import *\n'
             '# import nope\ns = "import nope"\n"""\nfrom nope import x\n"""\n',
             [("os", ""), ("a.b", ""), (".", ""), ("..p", ""), ("m", "")]),
    "a.js": ('import a, {b as c} from "./x";\nimport "z";\nexport {q} from "./w";\nconst r = require("./r");\n'
             'import("./lazy");\n// require("./no")\n/*\n * , express = require(\'express\')\n */\nf("require(\'no\')");\n',
             [("./x", ""), ("z", ""), ("./w", ""), ("./r", ""), ("./lazy", "")]),
    "a.ts": ('import type { T } from "./types";\nimport x = require("./old");\n', [("./types", ""), ("./old", "")]),
    "a.go": ('package a\nimport (\n u "x/y"\n "fmt"\n)\n// import "no"\n', [("x/y", ""), ("fmt", "")]),
    "lib.rs": ('use crate::{a::{B, C as D}, e};\nmod x;\nmod z { }\n// use crate::no;\n',
               [("crate::{a::{B, C as D}, e}", ""), ("x", "submodule")]),
    "A.java": ('package p.q;\nimport java.util.List;\nimport a.b.*;\n// import no.Way;\n',
               [("p.q", "package"), ("java.util.List", ""), ("a.b", "")]),
    "a.kt": ('package p\nimport kotlin.math.max\nimport a.B as C\n', [("p", "package"), ("kotlin.math.max", ""), ("a.B", "")]),
    "a.c": ('#include "a.h"\n#include <b/c.h>\n// #include "no.h"\n', [("a.h", ""), ("b/c.h", "library")]),
    "a.cpp": ('#include "a.h"\nusing std::string;\n', [("a.h", ""), ("std::string", "")]),
    "a.cs": ('using System;\nusing X = A.B;\n', [("System", ""), ("A.B", "")]),
    "a.rb": ('require "json"\nrequire_relative "../x"\n# require "no"\n', [("json", ""), ("../x", "relative")]),
    "a.lua": ('local u = require("a.util")\nlocal c = require "a.config"\n-- require("no")\nlocal n = require("a." .. x)\n'
              'local function f() return require("a.view").show() end\n', [("a.util", ""), ("a.config", ""), ("a.view", "")]),
    "a.php": ('<?php\nuse Other\\Base;\nrequire_once "x.php";\n', [("Other\\Base", ""), ("x.php", "")]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_languages_imports(tmp_path: Path, name: str) -> None:
    source, expected = CASES[name]
    (tmp_path / name).write_text(source)
    assert [(i.module, i.kind) for i in read_imports(ParseCache().get(tmp_path / name))] == expected


def test_names_lines_and_text(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nfrom ..p import (y as z,\n w)\nfrom m import *\n")
    found = read_imports(ParseCache().get(tmp_path / "a.py"))
    assert [(i.line, i.names, i.text) for i in found] == [
        (2, ("y as z", "w"), "from ..p import (y as z,"), (4, ("*",), "from m import *")]
