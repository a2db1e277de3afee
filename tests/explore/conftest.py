"""A small polyglot project: the same shapes (a Greeter type with a greet method, a helper function
and a caller) in every language the exploration tools support."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.explore.service import Explorer
from tests.conftest import write_files

SOURCES: dict[str, str] = {
    "src/app/greeter.py": '''"""Greeter module: helper is mentioned here in a docstring."""
import os
from typing import Optional as Opt

GREETING = "hello"
counter, total = 0, 0


class Greeter(Base):
    prefix: str = "hi"

    def greet(self, name):
        # helper is called below
        message = f"{helper(name)} and helper"
        return message

    @staticmethod
    def make():
        def inner():
            return helper("x")
        return inner


def helper(value):
    return os.path.join("helper", value)
''',
    "src/app/uses.py": '''from app.greeter import helper

result = helper("a")  # helper again
text = "helper in a string"
''',
    "web/greeter.js": '''import { helper } from "./util.js";

// helper comment
export class Greeter extends Base {
  greet(name) {
    return helper(`${name} helper`);
  }
}

export function makeGreeter() { return new Greeter(); }
const arrow = (x) => helper(x);
''',
    "web/util.ts": '''import * as fs from "fs";

export interface Named { name: string }

export class Greeter implements Named {
  name = "g";
  greet(who: string): string { return helper(who); }
}

export function helper(value: string): string { return value; }
export type Alias = string;
export enum Color { Red, Green }
''',
    "web/view.tsx": '''export function Card(props: { title: string }) {
  return <div className="helper">{helper(props.title)}</div>;
}
function helper(t: string) { return t; }
''',
    "go/greeter.go": '''package greeter

import (
	"fmt"
	"strings"
)

const Greeting = "hello"

type Greeter struct{ Prefix string }

type Named interface{ Name() string }

func (g *Greeter) Greet(name string) string {
	return helper(name) + fmt.Sprint(strings.ToUpper("helper"))
}

func helper(value string) string { return value }
''',
    "rust/lib.rs": '''use std::fmt;

pub struct Greeter { prefix: String }

pub trait Named { fn name(&self) -> String; }

impl Greeter {
    pub fn greet(&self, name: &str) -> String {
        helper(name) // helper comment
    }
}

fn helper(value: &str) -> String { value.to_string() }

const LIMIT: u32 = 3;
''',
    "java/Greeter.java": '''package demo;

import java.util.List;

public class Greeter extends Base implements Named {
    private static final int LIMIT = 3;

    public Greeter() {}

    public String greet(String name) {
        return helper(name); // helper
    }

    static String helper(String value) { return "helper" + value; }
}

interface Named { String name(); }
''',
    "c/greeter.c": '''#include <stdio.h>
#include "greeter.h"

struct greeter { int count; };

static int limit = 3;

static const char *helper(const char *value) { return value; }

int greet(const char *name) {
    /* helper comment */
    printf("%s", helper(name));
    return 0;
}
''',
    "cpp/greeter.cpp": '''#include <string>

namespace demo {
class Greeter : public Base {
 public:
  std::string greet(const std::string& name) { return helper(name); }
};

std::string helper(const std::string& value) { return value; }
}  // namespace demo

int Greeter::count() const { return 1; }
''',
    "cs/Greeter.cs": '''using System;

namespace Demo {
    public class Greeter : Base {
        public int Count { get; set; }
        private int limit = 3;

        public Greeter() {}

        public string Greet(string name) { return Helper(name); }

        static string Helper(string value) { return value; }
    }

    interface INamed { string Name(); }
}
''',
    "ruby/greeter.rb": '''require "json"

module Demo
  LIMIT = 3

  class Greeter < Base
    def greet(name)
      helper(name) # helper comment
    end

    def self.make
      Greeter.new
    end
  end

  def helper(value)
    "#{value} helper"
  end
end
''',
    "php/Greeter.php": '''<?php
namespace Demo;

use Other\\Base;

class Greeter extends Base {
    const LIMIT = 3;

    public function greet($name) {
        return helper($name); // helper
    }
}

function helper($value) { return "helper"; }
''',
    "kotlin/Greeter.kt": '''package demo

import kotlin.math.max

class Greeter(val prefix: String) : Base() {
    val limit = 3

    fun greet(name: String): String {
        return helper(name) // helper
    }
}

object Registry { fun make() = Greeter("x") }

fun helper(value: String): String = value
''',
    "docs/notes.md": "The helper function greets.\n",
    "ignored/skip.py": "def helper():\n    return 1\n",
    "node_modules/dep/index.js": "function helper() {}\n",
}


def explorer_over(root: Path, files: dict[str, str]) -> Explorer:
    """An Explorer with default settings over `root`, after writing `files` into it."""
    write_files(root, files)
    return Explorer(ProjectRoot(root.resolve()), Config)


@pytest.fixture
def polyglot(project_dir: Path) -> Path:
    write_files(project_dir, SOURCES)
    (project_dir / ".gitignore").write_text("ignored/\n", encoding="utf-8")
    # rg only honours .gitignore inside a git repository
    (project_dir / ".git").mkdir()
    return project_dir


@pytest.fixture
def explorer(polyglot: Path) -> Explorer:
    return Explorer(ProjectRoot.from_args(polyglot), lambda: Config())


def build_explorer(root: Path, **config: object) -> Explorer:
    settings = Config(**config)  # type: ignore[arg-type]
    return Explorer(ProjectRoot.from_args(root), lambda: settings)


@pytest.fixture
def make_explorer() -> Callable[..., Explorer]:
    """`make_explorer(root, **config)`: an Explorer over any folder with config overrides."""
    return build_explorer
