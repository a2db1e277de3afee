"""Empty implementations in Elixir and Haskell (and Ruby's `raise "not implemented"`), judged on their tree-sitter parse (queries/<language>/empty_body.scm)."""

from __future__ import annotations

import pytest

from code_intel.workflow.evidence import is_empty_body

EMPTY = [
    ("elixir", "def f(x) do\n  # TODO\n  nil\nend"),
    ("elixir", "defmodule Cart do\n  @doc \"Totals.\"\n  def total(cart) do\n    # FIXME\n    0\n  end\nend"),
    ("elixir", "@doc \"Adds.\"\n@spec add(integer, integer) :: integer\ndef add(a, b) do\n  # TODO\n  0\nend"),
    ("haskell", "-- TODO\nf :: Int -> Int\nf x = undefined"),
    ("elixir", "def f(x) do\n  raise \"not implemented\"\nend"),
    ("elixir", "def f(x) do\n  raise RuntimeError, \"not implemented yet\"\nend"),
    ("ruby", "def f(x)\n  raise \"not implemented\"\nend"),
    ("haskell", "f :: Int -> Int\nf x = error \"not implemented\""),
]
NOT_EMPTY = [
    ("elixir", "def f(x) do\n  x + 1\nend"),
    ("elixir", "@doc \"Adds.\"\ndef add(a, b), do: a + b"),
    ("elixir", "defmodule Cart do\n  def total(cart) do\n    Enum.sum(cart.prices)\n  end\nend"),
    ("elixir", "defmodule MyError do\n  defexception [:message]\nend"),
    ("haskell", "fact :: Int -> Int\nfact 0 = 1\nfact n = n * fact (n - 1)"),
    ("haskell", "data Shape = Circle Double"),
    ("haskell", "instance Show Shape where\n  show _ = \"shape\""),
    ("elixir", "def f(x) do\n  raise ArgumentError, \"bad #{x}\"\nend"),
    ("haskell", "f x = error (\"bad \" ++ show x)"),
]


@pytest.mark.parametrize(("language", "source"), EMPTY)
def test_placeholders_are_empty(language: str, source: str) -> None:
    assert is_empty_body(source.split("\n"), language)


@pytest.mark.parametrize(("language", "source"), NOT_EMPTY)
def test_implementations_and_declarations_are_not_empty(language: str, source: str) -> None:
    assert not is_empty_body(source.split("\n"), language)
