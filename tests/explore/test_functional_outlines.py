"""get_symbols, structure and definitions for Elixir, Scala and Haskell files (real files, real ctags when present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.explore.models import OutlineSymbol
from code_intel.explore.service import Explorer
from tests.conftest import write_files
from tests.index.test_functional_languages import HASKELL

SOURCES = {
    "lib/shop/cart.ex": '''defmodule Shop.Cart do
  @moduledoc "A cart."
  alias Shop.{Item, Price}

  @doc "Adds."
  def add(cart, item) when is_map(item) do
    Enum.concat(cart, [item])
  end

  def total(%{items: []}), do: 0
  def total(%{items: items}), do: Enum.sum(items)

  defp round_price(value), do: Float.round(value, 2)

  defmodule Line do
    def new(item), do: %{item: item}
  end
end

defimpl String.Chars, for: Shop.Cart do
  def to_string(_cart), do: "cart"
end
''',
    "src/main/scala/shop/Cart.scala": '''package shop

trait Priced[A] extends Serializable {
  def price(a: A): BigDecimal
}

object Cart {
  def empty: Cart = Cart(Nil)
  implicit val pricedCart: Priced[Cart] = new Priced[Cart] {
    def price(a: Cart): BigDecimal = a.items.map(_.price).sum
  }
}

case class Cart(items: List[Item]) {
  def add(item: Item): Cart = copy(items = item :: items)
}
''',
    "src/Shapes.hs": HASKELL,
}


def _tree(symbols: list[OutlineSymbol]) -> list[tuple[str, str, int, list[object]]]:
    return [(s.kind, s.name, s.line, _tree(s.children)) for s in symbols]


@pytest.fixture
def explorer(tmp_path: Path) -> Explorer:
    write_files(tmp_path, SOURCES)
    return Explorer(ProjectRoot(tmp_path.resolve()), Config)


def test_elixir_outline_lists_modules_and_their_functions(explorer: Explorer) -> None:
    result = explorer.get_symbols("lib/shop/cart.ex")
    assert result.language == "elixir"
    assert _tree(result.symbols) == [
        ("module", "Shop.Cart", 1, [
            ("method", "add", 6, []), ("method", "total", 10, []), ("method", "total", 11, []),
            ("method", "round_price", 13, []), ("module", "Line", 15, [("method", "new", 16, [])]),
        ]),
        ("impl", "String.Chars.Shop.Cart", 20, [("method", "to_string", 21, [])]),  # the module Elixir names, as its chunk
    ]
    assert explorer.get_function_at_line("lib/shop/cart.ex", 7).name == "add"
    found = explorer.find_definitions("String.Chars.Shop.Cart").definitions  # each implementation told apart
    assert [(d.line, d.kind, d.scope) for d in found] == [(20, "impl", "String.Chars.Shop")]


def test_scala_outline_lists_traits_objects_classes_and_defs(explorer: Explorer) -> None:
    result = explorer.get_symbols("src/main/scala/shop/Cart.scala")
    kinds = {(s.kind, s.name): [(c.kind, c.name) for c in s.children] for s in result.symbols}
    assert kinds[("trait", "Priced")] == [("method", "price")]
    assert ("method", "empty") in kinds[("object", "Cart")] and ("variable", "pricedCart") in kinds[("object", "Cart")]
    assert kinds[("class", "Cart")] == [("method", "add")]
    assert {d.file for d in explorer.find_definitions("Priced").definitions} == {"src/main/scala/shop/Cart.scala"}
    # an instance made of an anonymous class holds its methods, as its chunk does
    priced = next(c for s in result.symbols if s.name == "Cart" for c in s.children if c.name == "pricedCart")
    assert (priced.line, priced.end_line, [(c.kind, c.name, c.line) for c in priced.children]) == (
        9, 11, [("method", "price", 10)])
    found = explorer.find_definitions("pricedCart.price").definitions
    assert [(d.line, d.scope) for d in found] == [(10, "Cart.pricedCart")]


def test_a_java_field_made_of_an_anonymous_class_holds_its_methods(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {"src/TypeAdapters.java": (
        "public final class TypeAdapters {\n  public static final TypeAdapter<Class> CLASS = new TypeAdapter<Class>() {\n"
        "    @Override public void write(JsonWriter out, Class value) { }\n"
        "    @Override public Class read(JsonReader in) { return null; }\n  }.nullSafe();\n\n  static int count = 1;\n}\n")})
    (adapters,) = explorer.get_symbols("src/TypeAdapters.java").symbols
    assert _tree(adapters.children) == [("field", "CLASS", 2, [("method", "write", 3, []), ("method", "read", 4, [])]),
                                        ("field", "count", 7, [])]
    assert explorer.get_function_at_line("src/TypeAdapters.java", 4).scope == "TypeAdapters.CLASS"


def test_haskell_outline_lists_declarations_and_no_type_as_a_function(explorer: Explorer) -> None:
    result = explorer.get_symbols("src/Shapes.hs")
    assert _tree(result.symbols) == [
        ("type", "Shape", 6, []),
        ("class", "HasArea", 8, []),
        ("impl", "Shape", 11, [("method", "area", 12, []), ("method", "area", 13, [])]),  # named by its type
        ("function", "fact", 17, []),
        ("function", "fact", 18, []),
    ]


@pytest.mark.parametrize(("name", "file"), [("round_price", "lib/shop/cart.ex"), ("fact", "src/Shapes.hs")])
def test_elixir_and_haskell_definitions_are_found(explorer: Explorer, name: str, file: str) -> None:
    assert file in {d.file for d in explorer.find_definitions(name).definitions}


def test_elixir_and_haskell_imports_are_read(explorer: Explorer) -> None:
    elixir = explorer.analyze_structure("lib/shop/cart.ex").imports
    assert [(i.module, i.names, i.line) for i in elixir] == [("Shop", ["Item", "Price"], 3)]
    haskell = explorer.analyze_structure("src/Shapes.hs").imports
    assert [(i.module, i.names, i.line) for i in haskell] == [("Data.List", ["sort"], 3)]


def test_scala_imports_are_read_as_dotted_modules(tmp_path: Path) -> None:
    # the grammar writes `cats.syntax.all` as three identifiers: one module, not three (nor none)
    write_files(tmp_path, {"core/src/main/scala/cats/data/Chain.scala": (
        "package cats.data\n\nimport cats.syntax.all._\nimport cats.kernel.{Eq, Order => Ord}\n"
        "import scala.collection.mutable\nimport cats.*\nimport cats.instances.{given, *}\n"
        "import shapeless.Witness, shapeless.labelled.{FieldType, field}\n\nobject Chain\n")})
    explorer = Explorer(ProjectRoot(tmp_path.resolve()), Config)
    imports = explorer.analyze_structure("core/src/main/scala/cats/data/Chain.scala").imports
    assert [(i.module, i.names, i.line) for i in imports] == [
        ("cats.syntax.all", ["*"], 3), ("cats.kernel", ["Eq", "Order => Ord"], 4), ("scala.collection.mutable", [], 5),
        ("cats", ["*"], 6), ("cats.instances", ["given", "*"], 7), ("shapeless.Witness", [], 8),
        ("shapeless.labelled", ["FieldType", "field"], 8)]


def test_an_elixir_behaviours_callbacks_are_in_its_outline(tmp_path: Path) -> None:
    from tests.index.test_functional_languages import BEHAVIOUR

    write_files(tmp_path, {"lib/store/repo.ex": BEHAVIOUR})
    result = Explorer(ProjectRoot(tmp_path.resolve()), Config).get_symbols("lib/store/repo.ex")
    assert _tree(result.symbols) == [("module", "Store.Repo", 1, [
        ("method", "insert", 8, []), ("method", "purge", 11, []), ("method", "ready?", 13, [])])]


def test_a_haskell_operator_defined_infix_is_named_by_its_operator(tmp_path: Path) -> None:
    from code_intel.index.chunker import Chunker

    source = ("module XMonad.ManageHook where\n\n-- | If @p@ returns 'True', execute the hook.\n"
              "(-->) :: (Monad m, Monoid a) => m Bool -> m a -> m a\np --> f = p >>= \\b -> if b then f else return mempty\n")
    write_files(tmp_path, {"src/XMonad/ManageHook.hs": source})
    result = Explorer(ProjectRoot(tmp_path.resolve()), Config).get_symbols("src/XMonad/ManageHook.hs")
    assert _tree(result.symbols) == [("function", "-->", 5, [])]
    chunks = Chunker().chunk("src/XMonad/ManageHook.hs", source, "haskell")
    assert [(c.symbol, c.kind) for c in chunks] == [("-->", "function")]  # the tiny header joins it


def test_an_exunit_files_describe_blocks_and_tests_are_in_its_outline(tmp_path: Path) -> None:
    # as they are its chunks: the tests of a `_test.exs` file, named by their titles, inside their describe blocks
    write_files(tmp_path, {
        "test/phoenix/router_test.exs": (
            'defmodule Phoenix.RouterTest do\n  use ExUnit.Case, async: true\n\n  defp build(path), do: path\n\n'
            '  describe "scope" do\n    @tag :slow\n    test "nests routes" do\n      assert build("/a") == "/a"\n'
            '    end\n\n    test "keeps a prefix", do: assert(true)\n  end\n\n  test "matches the root" do\n'
            '    assert true\n  end\n\n  describe "phx.gen.json" do\n  end\nend\n'),
        "lib/phoenix/runner.ex": 'defmodule Phoenix.Runner do\n  def run do\n    test "not a test here"\n  end\nend\n',
    })
    explorer = Explorer(ProjectRoot(tmp_path.resolve()), Config)
    result = explorer.get_symbols("test/phoenix/router_test.exs")
    assert _tree(result.symbols) == [("module", "Phoenix.RouterTest", 1, [
        ("method", "build", 4, []),
        ("class", "scope", 6, [("function", "nests routes", 8, []), ("function", "keeps a prefix", 12, [])]),
        ("function", "matches the root", 15, []), ("class", "phx.gen.json", 19, [])])]
    assert explorer.get_function_at_line("test/phoenix/router_test.exs", 9).name == "nests routes"
    for title, line in (('test "nests routes"', 8), ("keeps a prefix", 12), ('describe "scope"', 6),  # by their titles
                        ("phx.gen.json", 19), ('describe "phx.gen.json"', 19)):  # dots and all
        assert [(d.file, d.line) for d in explorer.find_definitions(title).definitions] == [
            ("test/phoenix/router_test.exs", line)], title
    runner = explorer.get_symbols("lib/phoenix/runner.ex")  # elsewhere a `test` call defines nothing
    assert _tree(runner.symbols) == [("module", "Phoenix.Runner", 1, [("method", "run", 2, [])])]


def test_haskell_definitions_come_from_the_tree(explorer: Explorer) -> None:
    found = {(d.name, d.kind, d.line) for d in explorer.find_definitions("HasArea").definitions}
    assert found == {("HasArea", "class", 8)}
    assert explorer.find_definitions("class").definitions == []  # ctags' Haskell parser named the class line so


def test_elixir_modules_are_found_by_their_last_name_and_whole_and_no_doc_example_is_a_definition(
        tmp_path: Path) -> None:
    write_files(tmp_path, {"lib/web/router.ex": '''defmodule Web.Router do
  @moduledoc """
  Use it in your application:

      defmodule MyApp.Router do
        use Web.Router
      end
  """

  def scope(path), do: path
end
'''})
    explorer = Explorer(ProjectRoot(tmp_path.resolve()), Config)
    for name in ("Router", "Web.Router"):
        assert [(d.name, d.line, d.scope) for d in explorer.find_definitions(name).definitions] == [("Router", 1, "Web")]
    assert [(d.name, d.scope) for d in explorer.find_definitions("Web.Router.scope").definitions] == [("scope", "Web.Router")]
