"""Elixir, Scala and Haskell: parsed and chunked by definition, not cut into line windows (no model needed)."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

from code_intel.core.config import Config
from code_intel.core.file_roles import file_role
from code_intel.core.project import ProjectRoot
from code_intel.index.chunker import Chunker
from code_intel.index.files import list_source_files
from code_intel.languages.table import language_for

ELIXIR = '''defmodule Shop.Cart do
  @moduledoc """
  A shopping cart kept in a process.
  """
  alias Shop.Item

  @doc """
  Adds an item to the cart.
  """
  @spec add(t, Item.t) :: t

  def add(cart, item) when is_map(item) do
    %{cart | items: [item | cart.items]}
  end

  def total(%{items: []}), do: 0
  def total(%{items: items}), do: Enum.sum(Enum.map(items, & &1.price))

  defp round_price(value), do: Float.round(value, 2)

  defmodule Line do
    defstruct [:item, :count]
    def new(item), do: %__MODULE__{item: item, count: 1}
  end
end

defimpl String.Chars, for: Shop.Cart do
  def to_string(cart), do: "cart of #{length(cart.items)}"
end
'''


def test_elixir_modules_and_functions_are_chunks_named_by_their_module() -> None:
    chunks = Chunker(60).chunk("lib/shop/cart.ex", ELIXIR, "elixir")
    by_symbol = {c.symbol: c for c in chunks}
    assert {"Shop.Cart", "Shop.Cart.add", "Shop.Cart.total", "Shop.Cart.round_price", "Shop.Cart.Line",
            "String.Chars.Shop.Cart"} <= set(by_symbol)
    assert all(c.kind != "lines" for c in chunks)
    # the module's header holds its @moduledoc
    assert by_symbol["Shop.Cart"].kind == "class" and "A shopping cart" in by_symbol["Shop.Cart"].content
    # @doc and @spec belong to the def below them, across the blank line after the @spec
    add = by_symbol["Shop.Cart.add"]
    assert add.kind == "function" and add.content.lstrip().startswith('@doc """') and (add.start_line, add.end_line) == (7, 14)
    # the clauses of one function are one chunk
    total = [c for c in chunks if c.symbol == "Shop.Cart.total"]
    assert len(total) == 1 and (total[0].start_line, total[0].end_line) == (16, 17)
    # a defimpl is named as Elixir names its module and implements the protocol; a defmodule names no supertype
    assert by_symbol["String.Chars.Shop.Cart"].implements == ["Chars"]
    assert by_symbol["Shop.Cart"].implements == [] and by_symbol["Shop.Cart.Line"].implements == []


def test_a_small_elixir_module_is_one_chunk_listing_its_functions() -> None:
    chunks = Chunker(512).chunk("lib/shop/cart.ex", ELIXIR, "elixir")
    cart = next(c for c in chunks if c.symbol == "Shop.Cart")
    assert (cart.start_line, cart.end_line) == (1, 25)
    assert {"Shop.Cart.add", "Shop.Cart.total", "Shop.Cart.Line", "Shop.Cart.Line.new"} <= set(cart.symbols)


SCALA = '''package cats

/** The package's own aliases and instances. */
package object data {
  type Id[A] = A

  implicit val idFunctor: Functor[Id] = new Functor[Id] {
    def map[A, B](fa: Id[A])(f: A => B): Id[B] = f(fa)
  }
}

trait Functor[F[_]] extends Invariant[F] with Serializable { self =>
  def map[A, B](fa: F[A])(f: A => B): F[B]
}
'''


def test_scala_package_objects_and_implicit_instances_are_chunks() -> None:
    chunks = Chunker(512).chunk("core/src/main/scala/cats/data/package.scala", SCALA, "scala")
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["data"].kind == "class" and "data.idFunctor" in by_symbol["data"].symbols
    small = Chunker(30).chunk("core/src/main/scala/cats/data/package.scala", SCALA, "scala")
    instance = next(c for c in small if c.symbol == "data.idFunctor")
    assert instance.kind == "class" and instance.implements == ["Functor"]
    # type parameters in square brackets are not supertypes
    assert by_symbol["Functor"].implements == ["Invariant", "Serializable"]


HASKELL = '''module Shapes (Shape (..), area, fact) where

import Data.List (sort)

-- | A plane figure.
data Shape = Circle Double | Square Double

class HasArea a where
  area :: a -> Double

instance HasArea Shape where
  area (Circle r) = pi * r * r
  area (Square s) = s * s

-- | The factorial.
fact :: Int -> Int
fact 0 = 1
fact n = n * fact (n - 1)
'''


def test_haskell_declarations_are_chunks_with_their_haddock_and_signature() -> None:
    chunks = Chunker(512).chunk("src/Shapes.hs", HASKELL, "haskell")
    assert all(c.kind != "lines" for c in chunks)
    # the short data, class and instance declarations are tiny siblings: one chunk names them all, and the
    # instance, named by its type, implements its class as a Rust `impl Trait for Type`
    (types, fact) = chunks
    assert (types.symbol, types.kind, types.start_line, types.end_line) == ("Shape", "class", 1, 13)
    assert types.symbols == ["Shape", "HasArea", "Shape.area"] and types.implements == ["HasArea"]
    # the haddock above the first declaration (the grammar keeps it inside the imports) reads with it
    assert "-- | A plane figure.\ndata Shape = Circle Double | Square Double" in types.content
    assert (fact.symbol, fact.kind) == ("fact", "function")
    assert fact.content.startswith("-- | The factorial.") and fact.content.endswith("fact (n - 1)")


HASKELL_HEADER = '''{-# LANGUAGE CPP #-}
{-# LANGUAGE GADTs #-}

-- |
-- An abstract interface for maps from JSON keys to values.
module Data.Aeson.KeyMap (
    -- * Map Type
    KeyMap,
    -- * Query
    lookup,
    (!?),
    size,
    module Data.Aeson.Key,
) where

import Data.Aeson.Key (Key)

-- | The number of entries of the map, counted once for each key that is present in it at the time it is asked.
size :: KeyMap v -> Int
size (KeyMap m) = case m of
    Tip -> 0
    Bin n _ _ _ _ -> n + sizeOfTheRestOfTheMapCountedTheSlowWayRound m + anotherTermThatIsLong m
'''


def test_haskell_module_header_is_named_with_its_pragmas_haddock_and_exports() -> None:
    header, size = Chunker(512).chunk("src/Data/Aeson/KeyMap.hs", HASKELL_HEADER, "haskell")
    # the file's opening to its imports is module code named by the module, its exported names listed (not
    # re-exported modules); the haddock at the imports' end is the next definition's
    assert (header.symbol, header.kind, header.start_line, header.end_line) == ("Data.Aeson.KeyMap", "module", 1, 16)
    assert header.symbols == ["Data.Aeson.KeyMap", "Data.Aeson.KeyMap.KeyMap", "Data.Aeson.KeyMap.lookup",
                              "Data.Aeson.KeyMap.size"]
    assert "-- An abstract interface for maps from JSON keys to values." in header.content
    assert (size.symbol, size.kind, size.start_line) == ("size", "function", 18)



def test_a_haskell_module_that_ends_with_its_imports_is_chunked_by_its_grammar() -> None:
    # pandoc's Text.Pandoc.Class re-exports other modules and holds nothing after its imports: the imports' node ends
    # on the row after the file's last line, which the module chunk's end took, and the grammar's chunking failed
    text = ("{- | The monad classes of the library. -}\n\nmodule Text.Pandoc.Class\n  ( module Text.Pandoc.Class.IO\n"
            "  , Translations\n  ) where\n\nimport Text.Pandoc.Class.IO\nimport Text.Pandoc.Translations (Translations)\n")
    (chunk,) = Chunker(512).chunk("src/Text/Pandoc/Class.hs", text, "haskell")
    assert (chunk.symbol, chunk.kind, chunk.start_line, chunk.end_line) == ("Text.Pandoc.Class", "module", 1, 9)

HASKELL_INSTANCES = '''module Instances where

-- | Encoding of the Prelude's numbers.
instance ToJSON Int where toJSON = Number . fromIntegral
instance ToJSON Integer where toJSON = Number . fromInteger
instance ToJSON Double where toJSON = realFloatToJSON

-- | Encode a value with the options given, keeping the field names of its record as they are written.
genericToJSONWithOptions :: (Generic a, GToJSON (Rep a)) => Options -> a -> Value
genericToJSONWithOptions opts value =
  case gToJSON opts (from value) of
    Object o -> Object (KM.filter (not . isNull) o)
    other -> other
'''


def test_haskell_runs_of_one_line_instances_are_one_chunk_naming_each() -> None:
    chunks = Chunker(512).chunk("src/Instances.hs", HASKELL_INSTANCES, "haskell")
    run = [c for c in chunks if "Int" in c.symbols]
    assert len(run) == 1 and {"Integer", "Double"} <= set(run[0].symbols)
    assert run[0].content.count("instance ToJSON") == 3
    # a definition of its own size keeps its own chunk
    (generic,) = [c for c in chunks if c.symbol == "genericToJSONWithOptions"]
    assert generic.symbols == ["genericToJSONWithOptions"] and generic.content.startswith("-- | Encode")


HASKELL_TYPE_INSTANCES = '''module Tuples where

instance (FromJSON a, FromJSON b, FromJSON c, FromJSON d, FromJSON e, FromJSON f) => FromJSON (a, b, c, d, e, f) where
    parseJSON = withArray "(a, b, c, d, e, f)" $ \\t -> parseSixTuple parseJSON parseJSON parseJSON parseJSON t

instance (FromJSON a, FromJSON b, FromJSON c, FromJSON d, FromJSON e) => FromJSON1 ((,,,,,) a b c d e) where
    liftParseJSON = liftParseJSON2 omittedField parseJSON parseJSONList parseJSON parseJSONList parseJSON

instance (ToJSON a, ToJSON b, ToJSON c, ToJSON d, ToJSON e, ToJSON f, ToJSON g) => ToJSON [Maybe (a, b, c, d, e, f, g)] where
    toJSON = listValue (maybe Null (\\(a, b, c, d, e, f, g) -> toJSON [a, b, c, d, e, f, g])) . filterTheOnesThatMatter

instance UpdateSourcePos BS.ByteString Char where
    updateSourcePos pos c _ = updatePosChar pos c
'''


def test_haskell_instances_for_tuples_and_lists_are_named_by_the_type_not_the_class() -> None:
    # a tuple, list or unit type has no constructor name: the class's own name (`FromJSON`) made every such
    # instance a chunk "defining" the class, each one a name match for any question naming it
    chunks = Chunker(512).chunk("src/Tuples.hs", HASKELL_TYPE_INSTANCES, "haskell")
    named = [(c.symbol, c.implements) for c in chunks if c.kind == "class"]
    assert named == [("(a, b, c, d, e, f)", ["FromJSON"]), ("(,,,,,)", ["FromJSON1"]),
                     ("[Maybe (a, b, c, d, e, f, g)]", ["ToJSON"]), ("ByteString", ["UpdateSourcePos"])]


HASKELL_CLASS = '''module Monad where

-- | The effects every reader and writer may use, in IO or in a pure state.
class Monad m => PandocMonad m where
  -- | Look up an environment variable.
  lookupEnv :: Text -> m (Maybe Text)
  -- | The current time.
  getCurrentTime :: m UTCTime
  -- | Read the whole state.
  getState :: m State
''' + "".join(f"  -- | Read the resource number {i} of the document.\n  readResource{i} :: FilePath -> m ByteString\n"
          for i in range(40)) + '''
  -- | One field of the state.
  getsState :: (State -> a) -> m a
  getsState f = f <$> getState

-- | Run every step of the conversion.
convert :: Options -> Input -> IO Output
convert options input = do
''' + "\n".join(f"  step{i} <- runStep{i} options input (withDefault{i} settings{i})" for i in range(90)) + '''
  pure output

isBinary :: Text -> Bool
isBinary name = name `elem` ["docx", "odt"]
'''


def test_haskell_class_method_signatures_stay_with_the_class_and_a_small_function_keeps_its_name() -> None:
    chunks = Chunker(512).chunk("src/Monad.hs", HASKELL_CLASS, "haskell")
    # a class's signatures without a default are its declaration (they were the lead-in of the first method with
    # a default body, whose chunk then held them all): a signature leads only its own binding
    (header,) = [c for c in chunks if c.symbol == "PandocMonad" and c.kind == "class"]
    assert "lookupEnv :: Text" in header.content and "getCurrentTime :: m UTCTime" in header.content
    (gets,) = [c for c in chunks if c.symbol == "PandocMonad.getsState"]
    assert gets.content.lstrip().startswith("-- | One field of the state.") and "lookupEnv" not in gets.content
    # a small function after a long split one is a chunk of its own, not taken into the tail window
    (binary,) = [c for c in chunks if c.symbol == "isBinary"]
    assert binary.kind == "function" and binary.content.startswith("isBinary ::")


def test_elixir_scala_and_haskell_files_are_indexed_with_their_grammar(tmp_path: Path) -> None:
    for rel, text in {"lib/shop/cart.ex": ELIXIR, "test/shop/cart_test.exs": "defmodule CartTest do\nend\n",
                      "src/Shapes.hs": HASKELL, "src/main/scala/cats/package.scala": SCALA}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    files, _ = list_source_files(ProjectRoot(tmp_path), Config())
    assert {f.path for f in files} == {"lib/shop/cart.ex", "test/shop/cart_test.exs", "src/Shapes.hs",
                                       "src/main/scala/cats/package.scala"}
    assert [language_for(f.path) for f in files] == ["elixir", "haskell", "scala", "elixir"]
    chunks = Chunker(512).chunk("src/Shapes.hs", (tmp_path / "src/Shapes.hs").read_text(), language_for("x.hs"))
    assert any(c.symbol == "fact" for c in chunks)


def test_test_files_of_elixir_scala_and_haskell_conventions() -> None:
    assert file_role("test/shop/cart_test.exs") == "test"
    assert file_role("lib/shop/cart_test.exs") == "test"  # ExUnit's file name, wherever it lives
    assert file_role("core/src/test/scala/cats/FunctorSuite.scala") == "test"
    assert file_role("modules/core/src/main/scala/io/circe/CodecSpec.scala") == "test"
    assert file_role("src/ShapesSpec.hs") == "test"
    assert file_role("lib/shop/cart.ex") == "implementation"
    assert file_role("core/src/main/scala/cats/Functor.scala") == "implementation"
    assert file_role("src/Shapes.hs") == "implementation"


ROUTER = '''defmodule Web.Router do
  defmodule NoRouteError do
    defexception plug_status: 404, message: "no route found"
  end

  @moduledoc """
  Defines the routes of the application: each route matches a verb and a path and sends the request to a
  controller action through the pipelines of its scope.
  """

  @doc "Defines a GET route."
  defmacro get(path, plug, action) do
    quote do: add_route(:get, unquote(path), unquote(plug), unquote(action))
  end

  @doc "Defines a POST route."
  defmacro post(path, plug, action) do
    quote do: add_route(:post, unquote(path), unquote(plug), unquote(action))
  end
end
'''


def test_a_split_elixir_modules_header_is_its_moduledoc_when_nested_modules_come_first() -> None:
    chunks = Chunker(60).chunk("lib/web/router.ex", ROUTER, "elixir")
    header = [c for c in chunks if c.symbol == "Web.Router" and c.kind == "class"]
    assert len(header) == 1 and header[0].content.lstrip().startswith('@moduledoc """')
    assert {"Web.Router.get", "Web.Router.post"} <= set(header[0].symbols)
    # the `defmodule` line above the nested module opens the module: no definition below takes it
    error = next(c for c in chunks if c.symbol == "Web.Router.NoRouteError")
    assert error.start_line == 2


SCALA_INDENTED = '''trait FunctionK[F[_], G[_]] { self =>

  /**
   * Applies this transformation.
   */
  def apply[A](fa: F[A]): G[A]

  /**
   * Composes two instances of FunctionK.
   */
  def compose[E[_]](f: FunctionK[E, F]): FunctionK[E, G] =
    new FunctionK[E, G] { def apply[A](fa: E[A]): G[A] = self(f(fa)) }

  /**
   * Composes the other way round.
   */
  def andThen[H[_]](f: FunctionK[G, H]): FunctionK[F, H] =
    f.compose(self)
}
'''


def test_a_scala_body_that_runs_on_over_the_next_doc_gives_it_back() -> None:
    """tree-sitter-scala's indented body (`def f = <newline> expr`) holds the comment after it and ends in the next
    line's indentation: each def keeps its own doc, and no two chunks share a line."""
    chunks = Chunker(100).chunk("FunctionK.scala", SCALA_INDENTED, "scala")
    by_symbol = {c.symbol: c for c in chunks if c.kind == "function"}
    compose, and_then = by_symbol["FunctionK.compose"], by_symbol["FunctionK.andThen"]
    assert (compose.start_line, compose.end_line) == (8, 12) and "Composes two instances" in compose.content
    assert (and_then.start_line, and_then.end_line) == (14, 18) and and_then.content.lstrip().startswith("/**")
    assert all(b.start_line > a.end_line for a, b in itertools.pairwise(chunks))


def test_scala_supertypes_leave_out_type_and_constructor_parameters() -> None:
    source = ("abstract class HCursor(lastCursor: HCursor, lastOp: CursorOp) extends ACursor(lastCursor, lastOp) {\n"
              "  def value: Json\n}\n")
    (cursor,) = Chunker(512).chunk("HCursor.scala", source, "scala")
    assert cursor.implements == ["ACursor"]


SCALA3 = """package demo

/** Orders users by name. */
given userOrdering: Ordering[User] with
  def compare(a: User, b: User): Int = a.name.compare(b.name)

/** Louder strings. */
extension [A](xs: List[A])
  def second: A = xs(1)
  def third: A = xs(2)

given Conversion[Int, Long] = _.toLong

object Codecs:
  given intCodec: Codec[Int] = new Codec[Int] {
    def encode(i: Int): String = i.toString
  }
"""


def test_scala_3_givens_and_extensions_are_named_chunks() -> None:
    chunks = Chunker(512).chunk("core/src/main/scala-3/demo/Givens.scala", SCALA3, "scala")
    by_symbol = {c.symbol: c for c in chunks}
    ordering = by_symbol["userOrdering"]  # a given with a body is an instance of the type it gives
    assert ordering.kind == "class" and ordering.implements == ["Ordering"]
    assert ordering.content.startswith("/** Orders users by name. */") and "userOrdering.compare" in ordering.symbols
    extension = by_symbol["List"]  # named after the type it adds methods to, as Swift's extensions are
    assert extension.content.startswith("/** Louder strings. */") and extension.symbols == ["List", "List.second", "List.third"]
    assert by_symbol["given_Conversion_Int_Long"].kind == "function"  # the compiler's name for an anonymous given
    # a braceless object's declaration ends at its colon: the given below it names no supertype of Codecs
    assert by_symbol["Codecs"].implements == [] and "Codecs.intCodec" in by_symbol["Codecs"].symbols


def test_scala_3_enums_are_chunks_and_end_markers_no_chunks_of_their_own() -> None:
    source = ("package demo\n\n/** Colours of a card. */\nenum Color(val rgb: Int):\n  case Red extends Color(0xFF0000)\n\n"
              "  def hex: String = rgb.toHexString\nend Color\n\n/** A deck. */\ntrait Deck:\n  def draw(): Card\n"
              "end Deck\n\nobject Logarithm:\n  def apply(d: Double): Double = math.log(d)\nend Logarithm\n")
    chunks = Chunker(512).chunk("core/src/main/scala-3/demo/Color.scala", source, "scala")
    assert [(c.kind, c.symbol) for c in chunks] == [
        ("module", ""), ("class", "Color"), ("class", "Deck"), ("class", "Logarithm")]
    assert chunks[1].content.startswith("/** Colours of a card. */") and chunks[1].symbols == ["Color", "Color.hex"]


def test_a_backquoted_scala_name_is_the_name_inside() -> None:
    source = ("object `Content-Type` {\n  def parse(s: String): `Content-Type` = ???\n}\n\n"
              "final case class `Content-Type` private (mediaType: MediaType) extends Header.Single {\n"
              "  def `with-charset`(c: Charset): `Content-Type` = this\n}\n")
    chunks = Chunker(512).chunk("core/shared/src/main/scala/org/http4s/headers/Content-Type.scala", source, "scala")
    assert [(c.symbol, c.symbols, c.implements) for c in chunks] == [
        ("Content-Type", ["Content-Type", "Content-Type.parse"], []),  # not `Content` and `Type`
        ("Content-Type", ["Content-Type", "Content-Type.with-charset"], ["Header", "Single"])]


BEHAVIOUR = '''defmodule Store.Repo do
  @moduledoc "The behaviour of a store."

  @doc """
  Inserts a struct, or returns the changeset's errors.
  """
  @doc group: "Schema API"
  @callback insert(struct :: term, opts :: Keyword.t()) :: {:ok, term} | {:error, term}

  @doc "Deletes everything."
  @macrocallback purge() :: Macro.t()

  @callback ready? :: boolean
end
'''


def test_an_elixir_behaviours_callbacks_are_functions_with_their_docs() -> None:
    chunks = Chunker(80).chunk("lib/store/repo.ex", BEHAVIOUR, "elixir")
    functions = {c.symbol: (c.start_line, c.end_line) for c in chunks if c.kind == "function"}
    assert functions == {"Store.Repo.insert": (4, 8), "Store.Repo.purge": (10, 11), "Store.Repo.ready?": (13, 13)}


def test_exunit_tests_and_describe_blocks_are_chunks_named_by_their_titles() -> None:
    body = "".join(f"      assert conn.status == {k}\n" for k in range(6))
    source = ('defmodule Phoenix.RouterTest do\n  use ExUnit.Case, async: true\n\n  describe "scope" do\n'
              '    @tag :slow\n    test "nests routes", %{conn: conn} do\n' + body + '    end\n\n'
              '    test "one liner", do: assert(true)\n  end\n\n  # the plain case\n  test "top level" do\n'
              + body + '  end\nend\n')
    chunks = Chunker(max_tokens=80).chunk("test/phoenix/router_test.exs", source, "elixir")
    spans = {c.symbol: (c.kind, c.start_line, c.end_line) for c in chunks if c.kind in ("class", "function")}
    assert spans["Phoenix.RouterTest.scope"][0] == "class"
    assert spans["Phoenix.RouterTest.scope.nests routes"] == ("function", 5, 13)  # with its @tag
    assert spans["Phoenix.RouterTest.scope.one liner"] == ("function", 15, 15)
    assert spans["Phoenix.RouterTest.top level"] == ("function", 18, 26)  # with its comment
    # outside an ExUnit test file a `test` call is no definition
    assert {c.symbol for c in Chunker(max_tokens=80).chunk("lib/router.ex", source, "elixir")} == {"Phoenix.RouterTest"}


HASKELL_HADDOCKS = '''module Conversion (toEitherValue) where

import Data.List (sort)
import qualified Data.Map as M

-- | Generates both instances for the given type, as calling each generator in turn would, so that a user
-- who wants both writes one splice.
deriveBoth :: Options
           -- ^ Encoding options.
           -> Name
           -> Q [Dec]
deriveBoth = deriveWith deriveTo deriveFrom

-- | Convert 'Tokens' to a value, in normal form if forced: there should be no thunks inside it.
toEitherValue
    :: Tokens k e             -- ^ tokens
    -> Either e (Value, k)    -- ^ either the token error or the value and the leftover.
toEitherValue t = unResult (toResultValue t) Left $ \\v k -> Right (v, k)
'''


def test_haskell_haddocks_stay_with_their_definition() -> None:
    chunks = Chunker(512).chunk("src/Conversion.hs", HASKELL_HADDOCKS, "haskell")
    by_symbol = {c.symbol: c for c in chunks}
    # the first definition's haddock, which the grammar keeps inside the imports
    assert by_symbol["deriveBoth"].content.startswith("-- | Generates both instances")
    # a `-- ^` at the end of a signature's last line does not split the signature from its function
    convert = by_symbol["toEitherValue"]
    assert convert.content.startswith("-- | Convert 'Tokens'") and convert.content.endswith("Right (v, k)")
