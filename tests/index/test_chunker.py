"""AST chunking: granularity, splitting, merging and line windows (no model needed)."""

from __future__ import annotations

import re

from code_intel.index.chunker import (
    Chunker,
    accessor,
    bodiless,
    command_line,
    estimate_tokens,
    hollow,
    supertypes,
    valueless,
)
from code_intel.index.sync import chunk_metadata
from code_intel.languages.table import script_language

PYTHON = '''"""Module docs."""
import os


def load_settings(path):
    """Read settings from a file."""
    with open(path) as handle:
        data = handle.read()
    values = {}
    for line in data.splitlines():
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip()
    return values


class Cache:
    """Keeps values in memory for a while."""

    def __init__(self, ttl):
        self.ttl = ttl
        self.items = {}

    @property
    def size(self):
        return len(self.items)
'''


def test_python_functions_and_small_class_are_one_chunk_each() -> None:
    chunks = Chunker(512).chunk("pkg/settings.py", PYTHON, "python")
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["load_settings"].kind == "function"
    assert (by_symbol["load_settings"].start_line, by_symbol["load_settings"].end_line) == (5, 13)
    assert by_symbol["Cache"].kind == "class"
    assert by_symbol["Cache"].start_line == 16 and by_symbol["Cache"].end_line == 25
    assert all(c.language == "python" and c.file == "pkg/settings.py" for c in chunks)
    assert chunks[0].start_line == 1  # module docstring and imports are kept, not dropped


def test_large_class_splits_into_methods_with_qualified_names() -> None:
    methods = "\n".join(
        f"    def method_{i}(self, value):\n" + "".join(f"        value = value * {j} + {i}\n" for j in range(12))
        + "        return value\n" for i in range(8)
    )
    source = f"class Calculator:\n    base = 1\n\n{methods}"
    chunks = Chunker(128).chunk("calc.py", source, "python")
    symbols = [c.symbol for c in chunks]
    assert "Calculator.method_0" in symbols and "Calculator.method_7" in symbols
    header = chunks[0]
    assert header.start_line == 1 and "class Calculator" in header.content


def test_every_chunk_respects_max_tokens_and_oversized_functions_are_split() -> None:
    body = "".join(f"    total += compute_value_{i}(argument_{i})\n" for i in range(200))
    source = f"def huge(total):\n{body}    return total\n"
    chunks = Chunker(128).chunk("big.py", source, "python")
    assert len(chunks) > 3
    assert all(sum(estimate_tokens(line) + 1 for line in c.content.splitlines()) <= 128 for c in chunks)
    assert chunks[0].kind == "function" and {c.kind for c in chunks[1:]} == {"part"}
    assert all(c.symbol == "huge" for c in chunks)
    lines = [n for c in chunks for n in range(c.start_line, c.end_line + 1)]
    assert lines == list(range(1, 203))  # parts cover the function exactly once, in order


def test_tiny_functions_keep_their_own_chunk() -> None:
    source = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    chunks = Chunker(512).chunk("tiny.py", source, "python")
    assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("a", 1, 2), ("b", 5, 6), ("c", 9, 10)]
    assert all(c.kind == "function" and c.symbols == [c.symbol] for c in chunks)


def test_a_short_lead_in_right_above_a_tiny_function_still_joins_it() -> None:
    source = "import os\n# the home folder\ndef home():\n    return os.environ['HOME']\n\n\ndef pid():\n    return 1\n"
    chunks = Chunker(512).chunk("lead.py", source, "python")
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("home", "function", 1, 4), ("pid", "function", 7, 8)]


def test_javascript_classes_methods_and_arrow_functions() -> None:
    method_body = "".join(f"    this.total += {i};\n" for i in range(40))
    source = (
        "export class Cart {\n  add(item) {\n" + method_body + "  }\n  clear() {\n" + method_body + "  }\n}\n\n"
        "const priceOf = (item) => {\n" + method_body.replace("this.total", "item.price") + "};\n"
    )
    chunks = Chunker(256).chunk("cart.js", source, "javascript")
    symbols = {c.symbol for c in chunks}
    assert {"Cart.add", "Cart.clear", "priceOf"} <= symbols


def test_line_windows_for_text_and_markdown_sections() -> None:
    text = "# Install\n" + "step\n" * 100 + "# Usage\n" + "run it\n" * 100
    chunks = Chunker(128).chunk("README.md", text, "markdown")
    assert len(chunks) > 2 and all(c.kind == "lines" for c in chunks)
    assert chunks[0].symbol == "Install" and chunks[-1].symbol == "Usage"
    plain = Chunker(512).chunk("notes.txt", "hello\nworld\n", None)
    assert len(plain) == 1 and plain[0].language == "text" and plain[0].end_line == 2


def test_lines_strategy_ignores_the_ast_and_hash_follows_content() -> None:
    chunks = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON, "python")
    assert all(c.kind == "lines" for c in chunks)
    again = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON, "python")
    assert [c.content_hash for c in chunks] == [c.content_hash for c in again]
    changed = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON + "# more\n", "python")
    assert changed[-1].content_hash != chunks[-1].content_hash


GO_DOCUMENTED = '''package cache

import "time"

// Store keeps entries until they expire.
// It is safe for concurrent use by multiple goroutines,
// and every method locks the mutex before it reads the map.
// Entries older than the TTL are dropped lazily on access,
// so a long-lived store never grows without bound as long
// as keys are read now and then; Sweep drops the rest.
type Store struct {
	ttl time.Duration
}

// Get returns the value stored under key, or false when the key is
// missing or its entry expired. An expired entry is removed on the way
// out, so the next Get for the same key does not look at it again.
// This comment is longer than the function it documents, and the old
// chunker made it a chunk of its own, apart from its function.
func (s *Store) Get(key string) (string, bool) {
	return "", false
}

func Len() int { return 0 } // a trailing comment documents nothing below it
func Sweep() {}

// A comment with a blank line after it is not a doc comment.

func Reset() {}
'''

TS_DOCUMENTED = '''import { x } from "y";

/**
 * Resolves the charset of a response from its content-type header,
 * falling back to sniffing the first bytes of the body when the header
 * is missing, then to utf-8. Long enough to have been a chunk of its own,
 * apart from the function it documents, under the old lead-in rule.
 */
export function guessCharset(headers: Headers, body: Uint8Array): string {
  return "utf-8";
}

class Parser {
  /**
   * The method doc, long enough to explain what the method does in detail,
   * so that it crosses the size limit of the lead-in merge of the old chunker
   * and shows that it now joins the method below it in one chunk.
   */
  run(): void {}
}
'''


def test_long_go_doc_comments_join_the_definition_they_document() -> None:
    chunks = Chunker(512).chunk("cache.go", GO_DOCUMENTED, "go")
    spans = {c.symbol: (c.kind, c.start_line, c.end_line) for c in chunks if c.symbol}
    assert spans["Store"] == ("class", 5, 13)  # the six comment lines open the type's chunk
    assert spans["Store.Get"] == ("function", 15, 22)  # a Go method is named after its receiver's type
    get = next(c for c in chunks if c.symbol == "Store.Get")
    assert get.content.startswith("// Get returns the value") and "func (s *Store) Get" in get.content
    assert spans["Len"][1:] == (24, 24) and spans["Sweep"][1:] == (25, 25)  # a trailing comment is no doc
    assert spans["Reset"][1:] == (29, 29)  # a blank line separates a comment from the definition
    assert not any(c.kind == "module" and "Get returns" in c.content for c in chunks)


def test_jsdoc_blocks_join_functions_and_methods_in_typescript() -> None:
    chunks = Chunker(512).chunk("charset.ts", TS_DOCUMENTED, "typescript")
    by_symbol = {c.symbol: c for c in chunks if c.symbol}
    assert (by_symbol["guessCharset"].start_line, by_symbol["guessCharset"].end_line) == (3, 11)
    assert by_symbol["guessCharset"].content.startswith("/**")
    assert by_symbol["Parser"].start_line == 13 and "The method doc" in by_symbol["Parser"].content
    small = Chunker(64).chunk("charset.ts", TS_DOCUMENTED, "typescript")  # Parser splits into methods
    run = next(c for c in small if c.symbol == "Parser.run")
    assert run.start_line == 14 and run.content.lstrip().startswith("/**")


def test_go_methods_are_qualified_by_their_receiver_type() -> None:
    source = ("package x\n\nfunc (s *Store) Get(k string) string { return \"\" }\nfunc (s Store) Put() {}\n"
              "func (l *List[T]) Push(v T) {}\nfunc Free() {}\n")
    symbols = [c.symbol for c in Chunker(512).chunk("x.go", source, "go") if c.kind == "function"]
    assert symbols == ["Store.Get", "Store.Put", "List.Push", "Free"]


RUBY_NESTED = '''require "monitor"

module Shop
  module Storage
    # A store that keeps every entry in memory,
    # evicting the least recently used ones.
    class MemoryStore < Store
      LIMIT = 10

      # Removes the oldest entries until the store fits.
      def prune(size)
        @data.shift while @data.size > size
      end

''' + "".join(f'''      def method_{n}(key)
        value = @data.fetch(key) {{ compute_{n}(key) }}
        @data[key] = value
        log("method_{n}", key, value)
        value
      end

''' for n in range(12)) + '''    end
  end
end
'''


def test_a_ruby_doc_comment_above_the_first_definition_of_a_module_joins_that_definition() -> None:
    # tree-sitter puts the comments before a module's first statement outside its body
    chunks = Chunker(max_tokens=160).chunk("lib/shop/memory_store.rb", RUBY_NESTED, "ruby")
    header = next(c for c in chunks if c.symbol == "Shop.Storage.MemoryStore" and c.kind == "class")
    assert "A store that keeps every entry in memory" in header.content and "class MemoryStore" in header.content
    prune = next(c for c in chunks if c.symbol == "Shop.Storage.MemoryStore.prune")
    assert prune.content.lstrip().startswith("# Removes the oldest entries")


def test_a_ruby_module_that_only_holds_classes_is_a_namespace_without_a_chunk() -> None:
    chunks = Chunker(max_tokens=160).chunk("lib/shop/memory_store.rb", RUBY_NESTED, "ruby")
    assert not [c for c in chunks if c.symbol in ("Shop", "Shop.Storage")], [(c.symbol, c.content) for c in chunks[:3]]
    assert all(c.content.strip() not in ("module Shop", "module Storage") for c in chunks)


RUBY_SINGLETON = '''class Builder
  def self.parse_file(path)
    new(path).to_app
  end

  class << self
    # Builds the app from a block.
    def app(default_app = nil, &block)
      new(default_app, &block).to_app
    end

    def load_file(path)
      File.read(path)
    end
  end
end
'''


def test_methods_inside_a_ruby_class_self_block_are_the_class_methods_they_define() -> None:
    whole = Chunker().chunk("lib/builder.rb", RUBY_SINGLETON, "ruby")
    assert whole[0].symbol == "Builder" and {"Builder.app", "Builder.load_file"} <= set(whole[0].symbols)
    split = Chunker(max_tokens=40).chunk("lib/builder.rb", RUBY_SINGLETON, "ruby")
    app = next(c for c in split if c.symbol == "Builder.app")
    assert app.kind == "function" and "# Builds the app from a block." in app.content
    assert any(c.symbol == "Builder.load_file" and c.kind == "function" for c in split)


JAVA_LONG_DOC = "package shop;\n\n/**\n" + "".join(
    f" * Paragraph {n}: the registry keeps every listing of the catalogue and its prices, in order.\n"
    for n in range(40)) + ''' */
public class Registry {
    private final int size = 0;

''' + "".join(f'''    public int price{n}(int item) {{
        return item * {n} + size;
    }}

''' for n in range(30)) + "}\n"


def test_the_window_holding_a_long_javadoc_class_declaration_is_the_class_chunk() -> None:
    # a doc comment too long for one chunk fills windows of its own: they are parts, not the definition
    chunks = Chunker(max_tokens=400).chunk("src/Registry.java", JAVA_LONG_DOC, "java")
    declaration = next(c for c in chunks if "public class Registry" in c.content)
    assert declaration.kind == "class" and declaration.symbol == "Registry"
    doc_only = [c for c in chunks if c.symbol == "Registry" and "public class Registry" not in c.content
                and "Paragraph" in c.content]
    assert doc_only and all(c.kind == "part" for c in doc_only)


RUBY_CONSTANT_CLASS = '''module Shop
  # Options of a request.
  Env = Options.new(:method, :url, :body) do
    # Whether the body is empty.
    def empty_body?
      body.nil? || body.empty?
    end

    def inspect
      "#<Env #{method} #{url}>"
    end
  end
end
'''


def test_a_ruby_class_made_by_a_call_with_a_block_is_a_class_named_by_its_constant() -> None:
    whole = Chunker().chunk("lib/shop/env.rb", RUBY_CONSTANT_CLASS, "ruby")
    env = next(c for c in whole if c.symbol == "Shop.Env")
    assert env.kind == "class" and {"Shop.Env.empty_body?", "Shop.Env.inspect"} <= set(env.symbols)
    assert not [c for c in whole if c.symbol == "Shop"]  # the module only scopes it
    split = Chunker(max_tokens=30).chunk("lib/shop/env.rb", RUBY_CONSTANT_CLASS, "ruby")
    method = next(c for c in split if c.symbol == "Shop.Env.empty_body?")
    assert method.kind == "function" and "# Whether the body is empty." in method.content
    data = Chunker().chunk("lib/shop/options.rb", "Options = Data.define(:path) do\n  def root?\n    path == '/'\n"
                                                    "  end\nend\n", "ruby")
    assert [(c.symbol, c.kind, c.symbols) for c in data] == [("Options", "class", ["Options", "Options.root?"])]


RUBY_REOPENED = '''class Thor
  class Options < Arguments
    NUMERIC = /[-+]?(\\d*\\.\\d+|\\d+)/

''' + "".join(f'''    def check_{n}(value)
      raise Error, "bad {n}" unless value.to_s =~ NUMERIC
      value
    end

''' for n in range(10)) + '''  end
end
'''


def test_a_ruby_class_reopened_only_to_hold_classes_is_a_namespace() -> None:
    chunks = Chunker(max_tokens=100).chunk("lib/thor/parser/options.rb", RUBY_REOPENED, "ruby")
    assert not [c for c in chunks if c.symbol == "Thor"], [(c.symbol, c.content) for c in chunks[:2]]
    header = next(c for c in chunks if c.symbol == "Thor.Options" and c.kind == "class")
    assert "class Options < Arguments" in header.content


RUBY_MODULE_AROUND_A_SPLIT_CLASS = '''module Shop
  VERSION = "1.0"

  def self.configure
    yield config
  end

  class Base
''' + "".join(f'''    def route_{n}(path)
      routes[path] ||= compile("{n}", path)
      routes[path].call(path)
    end

''' for n in range(12)) + '''  end
end
'''


def test_a_split_class_header_lists_its_own_members_not_those_of_the_classes_inside_it() -> None:
    chunks = Chunker(max_tokens=120).chunk("lib/shop.rb", RUBY_MODULE_AROUND_A_SPLIT_CLASS, "ruby")
    shop = next(c for c in chunks if c.symbol == "Shop" and c.kind == "class")
    assert shop.symbols == ["Shop", "Shop.configure", "Shop.Base"], shop.symbols
    base = next(c for c in chunks if c.symbol == "Shop.Base" and c.kind == "class")
    assert "Shop.Base.route_0" in base.symbols and "Shop.Base.route_11" in base.symbols


def test_no_window_of_a_long_body_is_only_its_closing_lines() -> None:
    # whatever the length of a body, splitting it into windows leaves no `}` or `end` chunk behind
    for n in range(1, 40):
        java = "class A {\n    void f() {\n" + "        total = total + 1;\n" * n + "    }\n}\n"
        ruby = "class A\n  def f\n" + "    @total = @total + 1\n" * n + "  end\nend\n"
        for path, text, language in (("A.java", java, "java"), ("a.rb", ruby, "ruby")):
            chunks = Chunker(max_tokens=40).chunk(path, text, language)
            assert not [c for c in chunks if hollow(c.content)], (n, language, [c.content for c in chunks][-2:])


JAVA_ENUM = "public enum Feature implements ConfigFeature {\n" + "".join(
    f"    /**\n     * Feature number {n}: whether values of kind {n} are accepted while reading.\n     */\n"
    f"    FEATURE_{n}({'true' if n % 2 else 'false'}),\n\n" for n in range(12)) + '''    LAST(false);

    private final boolean _defaultState;

    Feature(boolean defaultState) {
        _defaultState = defaultState;
    }

    public boolean enabledByDefault() {
        return _defaultState;
    }

    public boolean enabledIn(int flags) {
        return (flags & getMask()) != 0;
    }
}
'''


def test_the_methods_of_a_java_enum_after_its_constants_are_functions() -> None:
    chunks = Chunker(max_tokens=120).chunk("src/Feature.java", JAVA_ENUM, "java")
    functions = {c.symbol: c for c in chunks if c.kind == "function"}
    assert {"Feature.enabledByDefault", "Feature.enabledIn"} <= set(functions), [(c.symbol, c.kind) for c in chunks]
    assert "return (flags & getMask()) != 0;" in functions["Feature.enabledIn"].content
    whole = Chunker().chunk("src/Feature.java", JAVA_ENUM, "java")
    assert "Feature.enabledIn" in next(c for c in whole if c.symbol == "Feature" and c.kind == "class").symbols


JAVA_ANNOTATION = '''package shop.annotation;

import java.lang.annotation.*;

/**
 * Names the strategy that renames a class's properties when they are written.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE})
public @interface Naming {
    /** The strategy to use. */
    Class<? extends NamingStrategy> value() default Void.class;
}
'''


def test_a_java_annotation_type_is_a_class_with_its_elements_as_members() -> None:
    chunks = Chunker().chunk("src/Naming.java", JAVA_ANNOTATION, "java")
    naming = next(c for c in chunks if c.symbol == "Naming")
    assert naming.kind == "class" and naming.symbols == ["Naming", "Naming.value"]
    assert "Names the strategy" in naming.content and "public @interface Naming" in naming.content


JAVA_STATES = "enum TokenState {\n" + "".join(
    f"    State{n} {{\n        @Override void read(Reader r, Tokens t) {{\n"
    + "".join(f"            if (r.matches('{c}')) t.emit(\"state {n} saw {c}\");\n" for c in "abcdefgh")
    + f"            t.transition(State{(n + 1) % 10});\n        }}\n    }},\n" for n in range(10)) + '''    ;

    abstract void read(Reader r, Tokens t);
}
'''

JAVA_ADAPTERS = '''public final class Adapters {
  /** Reads and writes a BitSet as an array of zeros and ones. */
  public static final TypeAdapter<BitSet> BIT_SET = new TypeAdapter<BitSet>() {
    @Override public BitSet read(JsonReader in) throws IOException {
      BitSet bitset = new BitSet();
      in.beginArray();
      return bitset;
    }

    @Override public void write(JsonWriter out, BitSet src) throws IOException {
      out.beginArray();
      out.endArray();
    }
  }.nullSafe();

  public static final int LIMIT = 3;
}
'''


def test_java_enum_constants_with_bodies_and_fields_holding_anonymous_classes_are_classes() -> None:
    # jsoup's TokeniserState: 70 states, each `Data { void read(...) {...} }`; they were line windows of the enum
    # with no state's name on them, cut in the middle of a method
    chunks = Chunker(max_tokens=200).chunk("parser/TokenState.java", JAVA_STATES, "java")
    states = {c.symbol: c for c in chunks if c.kind == "class" and c.symbol.startswith("TokenState.State")}
    assert set(states) == {f"TokenState.State{n}" for n in range(10)}, [(c.symbol, c.kind) for c in chunks]
    assert 'state 3 saw h' in states["TokenState.State3"].content and "TokenState.State3.read" in states[
        "TokenState.State3"].symbols
    header = next(c for c in chunks if c.symbol == "TokenState" and c.kind == "class")
    assert "TokenState.State9" in header.symbols
    assert not [c for c in chunks if c.kind == "part" and "saw" in c.content]
    # a field initialised with an anonymous class (an adapter, a comparator) is a class named by the field
    adapters = Chunker(max_tokens=60).chunk("bind/Adapters.java", JAVA_ADAPTERS, "java")
    kinds = {(c.symbol, c.kind): c for c in adapters}
    assert ("Adapters.BIT_SET", "class") in kinds, [(c.symbol, c.kind) for c in adapters]
    assert "Reads and writes a BitSet" in kinds["Adapters.BIT_SET", "class"].content
    assert ("Adapters.BIT_SET.read", "function") in kinds and ("Adapters.BIT_SET.write", "function") in kinds
    whole = Chunker().chunk("bind/Adapters.java", JAVA_ADAPTERS, "java")
    assert "Adapters.BIT_SET" in next(c for c in whole if c.symbol == "Adapters").symbols


RUBY_LOOSE_LINES = '''module Plugins
  module Caching
    def self.configure(app, opts = {})
      app.opts[:cache] = opts.fetch(:store) { Hash.new }
      app.opts[:cache_ttl] = opts.fetch(:ttl, 60)
    end

    def cached(key)
      store = opts[:cache]
      store.fetch(key) { store[key] = yield }
    end
    alias_method :cache, :cached

    def expire(key)
      opts[:cache].delete(key)
      opts[:cache_expired] = true
    end

    ## Internal API

    def purge_expired
      opts[:cache].clear if opts[:cache_expired]
      opts[:cache_expired] = false
    end
  end

  register_plugin(:caching, Caching)
end
'''


def test_a_lone_line_between_the_methods_of_a_split_ruby_class_joins_a_method_next_to_it() -> None:
    chunks = Chunker(max_tokens=60).chunk("lib/plugins/caching.rb", RUBY_LOOSE_LINES, "ruby")
    by_symbol = {c.symbol: c for c in chunks if c.kind == "function"}
    # an alias, a trailing registration call and a section banner were one-line chunks of their own, each
    # scoring high on a short text; they belong to the definition beside them
    assert "alias_method :cache, :cached" in by_symbol["Plugins.Caching.cached"].content
    assert by_symbol["Plugins.Caching.purge_expired"].content.lstrip().startswith("## Internal API")
    assert "register_plugin(:caching, Caching)" in by_symbol["Plugins.Caching.purge_expired"].content
    assert not [c for c in chunks if c.kind == "part" and c.end_line - c.start_line <= 1], \
        [(c.kind, c.symbol, c.content) for c in chunks]
    # every line of code is still in a chunk
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(n in covered for n, line in enumerate(RUBY_LOOSE_LINES.splitlines(), 1)
               if line.strip() and line.strip() != "end")


def test_a_ruby_class_named_with_its_scope_is_named_as_if_nested() -> None:
    text = "class Thor::Runner < Thor\n  def install(name)\n    name\n  end\nend\n"
    nested = "class Thor\n  class Runner < Thor\n    def install(name)\n      name\n    end\n  end\nend\n"
    flat = Chunker(max_tokens=8).chunk("lib/thor/runner.rb", text, "ruby")
    # `Thor::Runner` was the class's own name: a question for `Runner` did not find it as a definition
    assert {c.symbol for c in flat} >= {"Thor.Runner", "Thor.Runner.install"}, [c.symbol for c in flat]
    assert {c.symbol for c in flat if c.kind == "function"} == {
        c.symbol for c in Chunker(max_tokens=8).chunk("lib/thor/runner.rb", nested, "ruby") if c.kind == "function"}


RUBY_CONDITIONAL_METHODS = '''class Renderer
  def render(template)
    compile(template).call
  end

  if RUBY_VERSION >= "2.4"
    # Compiles the template into a method, cached by name.
    def compile(template)
      cache.fetch(template) { build(template) }
    end
  else
    def compile(template)
      build(template)
    end
  end

  unless method_defined?(:cache)
    def cache
      @cache ||= {}
    end
  end

  class_methods do
    def engines
      [:erb, :haml]
    end
  end
end
'''


def test_ruby_methods_defined_under_a_condition_or_in_a_dsl_block_are_the_classes_own() -> None:
    chunks = Chunker(max_tokens=40).chunk("lib/renderer.rb", RUBY_CONDITIONAL_METHODS, "ruby")
    functions = [c for c in chunks if c.kind == "function"]
    # they were loose lines of the class (parts with no name), so no question naming them found a definition
    assert [c.symbol for c in functions] == ["Renderer.render", "Renderer.compile", "Renderer.compile",
                                             "Renderer.cache", "Renderer.engines"], [(c.kind, c.symbol) for c in chunks]
    assert functions[1].content.lstrip().startswith("# Compiles the template")
    whole = Chunker().chunk("lib/renderer.rb", RUBY_CONDITIONAL_METHODS, "ruby")
    assert len(whole) == 1 and {"Renderer.compile", "Renderer.cache", "Renderer.engines"} <= set(whole[0].symbols)


RUBY_WRAPPED_METHODS = """class Base
  def open(dir)
    normalize_paths(dir)
  end

  private

  # Normalize options before they are sent to Base.new
  private_class_method def self.normalize_paths(options, default_working_directory: nil)
    options[:working_directory] ||= default_working_directory
    options
  end

  private def token
    @token ||= SecureRandom.hex(16)
  end
end
"""


def test_a_ruby_method_wrapped_in_a_modifier_call_is_a_method() -> None:
    # `private def x` and `private_class_method def self.x(...)`: the call takes the method as its argument, and the
    # method was a loose line of the class (a part with no name of its own)
    chunks = Chunker(max_tokens=40).chunk("lib/git/base.rb", RUBY_WRAPPED_METHODS, "ruby")
    functions = [c for c in chunks if c.kind == "function"]
    assert [c.symbol for c in functions] == ["Base.open", "Base.normalize_paths", "Base.token"], \
        [(c.kind, c.symbol) for c in chunks]
    assert functions[1].content.lstrip().startswith("# Normalize options")  # its doc comment with it
    whole = Chunker().chunk("lib/git/base.rb", RUBY_WRAPPED_METHODS, "ruby")
    assert len(whole) == 1 and {"Base.normalize_paths", "Base.token"} <= set(whole[0].symbols)


def test_a_named_function_expression_exported_behind_a_condition_is_a_function() -> None:
    # axios lib/adapters/http.js: the adapter is exported only where the platform has `process`
    body = "".join(f"  const part{k} = config.part{k};\n" for k in range(4))
    source = ("const isHttpAdapterSupported = typeof process !== 'undefined';\n\n"
              "export default isHttpAdapterSupported && function httpAdapter(config) {\n" + body + "  return config;\n};\n"
              "\nexport default (ready ? function first() {} : function second() {});\n")
    for language in ("javascript", "typescript"):
        chunks = Chunker().chunk("lib/adapters/http.js", source, language)
        adapter = [c for c in chunks if c.symbol == "httpAdapter"]
        assert [(c.kind, c.start_line, c.end_line) for c in adapter] == [("function", 3, 9)], language
        assert not any(c.symbol in ("first", "second") for c in chunks)  # two candidates: no one name for it


def test_a_ruby_methods_comment_one_blank_line_above_its_def_is_its_doc() -> None:
    # RDoc style of net-http-persistent: `##`, the comment, a blank line, the method
    filler = "".join(f"    @option_{k} = nil # the default of option {k}, set by its writer below\n" for k in range(30))
    text = ("# frozen_string_literal: true\n\nclass Client\n  def initialize\n" + filler + "  end\n\n"
            "  ##\n  # Discard all existing connections. Subsequent checkouts will create\n  # new connections as needed.\n"
            "  #\n  # If any thread is still using a connection it may cause an error!  Call\n"
            "  # #reload when you are completely done making requests!\n\n"
            "  def reload\n    @pool.reload { |http| http.finish }\n  end\nend\n")
    chunks = Chunker(max_tokens=200).chunk("lib/client.rb", text, "ruby")
    reload = next(c for c in chunks if c.symbol == "Client.reload")
    assert reload.content.lstrip().startswith("##") and "Discard all existing connections" in reload.content
    assert not any("Discard" in c.content for c in chunks if c.kind == "part")
    client = next(c for c in chunks if c.symbol == "Client" and c.kind == "class")  # a magic comment is no doc
    assert not client.content.startswith("# frozen_string_literal")


CPP_HEADER = '''// A header in C++ with C's suffix, as fmt and abseil name theirs.
#ifndef SHAPES_H_
#define SHAPES_H_

#include <vector>

SHAPES_BEGIN_NAMESPACE

/// How a shape is drawn.
enum class style : unsigned char { solid, dashed };

template <typename T> struct area_of;

/// Areas of circles.
template <> struct area_of<circle> {
  double operator()(const circle& c) const { return 3.14 * c.r * c.r; }
};

class SHAPES_API SHAPES_LOCKABLE canvas {
 public:
  void draw(const circle& c);
  canvas& operator<<(const circle& c) { draw(c); return *this; }
  ~canvas() { flush(); }

 private:
  void flush();
  std::vector<circle> shapes_;
};

void canvas::draw(const circle& c) {
  shapes_.push_back(c);
}

SHAPES_END_NAMESPACE

#endif  // SHAPES_H_
'''


def test_a_cpp_header_with_a_c_suffix_is_chunked_as_cpp_through_its_include_guard_and_macros() -> None:
    chunks = Chunker(max_tokens=512).chunk("include/shapes.h", CPP_HEADER, "c")
    named = {(c.symbol, c.kind) for c in chunks}
    # a template specialisation is named without its arguments, an enum is a class, the guard, the macro that opens
    # a namespace and the export macros in a class head add no name of theirs, and a method defined outside its
    # class is qualified by it
    assert {("style", "class"), ("area_of", "class"), ("canvas", "class"), ("canvas.draw", "function")} <= named
    canvas = next(c for c in chunks if c.symbol == "canvas")
    assert {"canvas.operator<<", "canvas.~canvas"} <= set(canvas.symbols)
    doc = next(c for c in chunks if c.symbol == "style")
    assert doc.content.startswith("/// How a shape is drawn.")
    assert all(c.language == "c" for c in chunks)  # the file's language stays its suffix's
    # a declaration without a body is no definition, and the guard's closing line is no chunk of its own
    assert [c.start_line for c in chunks if c.symbol == "area_of"] == [14]
    assert not any(c.content.startswith("#endif") for c in chunks)


C_HEADER = '''#ifndef QUEUE_H_
#define QUEUE_H_

struct queue {
  struct queue* next;
  struct queue* prev;
};

static inline void queue_init(struct queue* q) {
  q->next = q;
  q->prev = q;
}

static inline int queue_empty(const struct queue* q) {
  return q == q->next;
}

#endif
'''


def test_a_c_header_keeps_its_definitions_inside_its_include_guard() -> None:
    chunks = Chunker(max_tokens=512).chunk("src/queue.h", C_HEADER, "c")
    assert [(c.symbol, c.kind) for c in chunks if c.kind != "module"] == [
        ("queue", "class"), ("queue_init", "function"), ("queue_empty", "function")]


CSHARP_CONDITIONAL_MODIFIER = '''namespace Packing
{
    /// <summary>Reads values.</summary>
#if INTERNAL
    internal
#else
    public
#endif
    ref partial struct Reader
    {
        private Buffer<byte> buffer;

        /// <summary>Reads a number.</summary>
        public int ReadInt32()
        {
            return this.Next();
        }

        public bool TryReadNil()
        {
            return this.Peek() == 0xc0;
        }
    }
}
'''


def test_csharp_methods_after_a_conditional_modifier_the_grammar_cannot_read_keep_their_chunks() -> None:
    # the grammar reads the type's opening up to its first member as one broken declaration; the methods after it
    # are read inside an ERROR node, where they are still definitions
    chunks = Chunker(max_tokens=512).chunk("Reader.cs", CSHARP_CONDITIONAL_MODIFIER, "csharp")
    functions = [c for c in chunks if c.kind == "function"]
    assert [c.symbol.rsplit(".", 1)[-1] for c in functions] == ["ReadInt32", "TryReadNil"]
    assert functions[0].content.lstrip().startswith("/// <summary>Reads a number.")


def test_a_csharp_file_scoped_namespace_qualifies_the_types_after_it_as_a_block_namespace_does() -> None:
    text = """namespace Packing.Core;

/// <summary>Options.</summary>
public sealed class Options
{
    public int Level { get; init; }

    public Options WithLevel(int level) => new() { Level = level };
}
"""
    block = "namespace Packing.Core\n{\n" + text.split("\n", 2)[2] + "}\n"
    for source in (text, block):
        chunks = Chunker(max_tokens=512).chunk("Options.cs", source, "csharp")
        options = next(c for c in chunks if c.kind == "class")
        assert options.symbol == "Packing.Core.Options"
        assert "Packing.Core.Options.WithLevel" in options.symbols
        assert "/// <summary>Options.</summary>\npublic sealed class Options" in options.content


def test_c_typedefs_of_structs_are_classes_named_by_their_alias_and_cpp_nested_namespaces_qualify() -> None:
    c_source = """/* A work item of the thread pool. */
typedef struct uv__work_s {
  void (*work)(struct uv__work_s *w);
  struct uv_loop_s* loop;
} uv__work_t;

typedef enum {
  UV_RUN_DEFAULT = 0,
  UV_RUN_ONCE
} uv_run_mode;

typedef int uv_file;
"""
    chunks = Chunker(max_tokens=512).chunk("uv-common.h", c_source, "c")
    assert [(c.symbol, c.kind, c.start_line) for c in chunks if c.kind == "class"] == [
        ("uv__work_t", "class", 1), ("uv_run_mode", "class", 7)]
    cpp_source = """namespace absl::strings_internal {

// Splits text.
class Splitter {
 public:
  int Next();
};

int Splitter::Next() { return 0; }

}  // namespace absl::strings_internal
"""
    chunks = Chunker(max_tokens=512).chunk("str_split.cc", cpp_source, "cpp")
    assert [c.symbol for c in chunks if c.kind != "module"] == [
        "absl.strings_internal.Splitter", "absl.strings_internal.Splitter.Next"]
    assert not any("// namespace" in c.content for c in chunks)


def test_annotation_macros_around_a_cpp_method_leave_it_its_own_name() -> None:
    text = """class Mutex {
 public:
  // Acquires the mutex.
  void lock() EXCLUSIVE_LOCK_FUNCTION();

  DEPRECATE_AND_INLINE()
  inline void Lock() EXCLUSIVE_LOCK_FUNCTION() { lock(); }

  bool held() const SHARED_LOCKS_REQUIRED(this) {
    return owner_ != 0;
  }

 private:
  int owner_ = 0;
};
"""
    chunks = Chunker(max_tokens=512).chunk("mutex.h", text, "cpp")
    [mutex] = chunks
    assert mutex.symbols == ["Mutex", "Mutex.Lock", "Mutex.held"]


def test_lua_module_table_functions_are_named_however_they_are_written() -> None:
    # nvim-lspconfig, lazy.nvim: `function M.f()`, `M.f = function()`, `local function f()`, `local f = function()`
    source = ("local M = {}\n\n--- Escapes wildcards.\n-- @param path string\nlocal function escape(path)\n"
              "  return path:gsub('*', '%*')\nend\n\n-- Finds the root by its markers.\nfunction M.root_pattern(...)\n"
              "  return escape(...)\nend\n\nfunction M:attach(bufnr)\n  return bufnr\nend\n\n"
              "--- Strips an archive's subpath.\nM.strip_archive_subpath = function(path)\n  return path\nend\n\n"
              "local helper = function(x)\n  return x * 2\nend\n\nM.count, M.total = 1, 2\n\nreturn M\n")
    chunks = Chunker().chunk("lua/lspconfig/util.lua", source, "lua")
    by_name = {c.symbol: c for c in chunks if c.kind == "function"}
    assert set(by_name) == {"escape", "M.root_pattern", "M:attach", "M.strip_archive_subpath", "helper"}
    assert by_name["escape"].content.startswith("--- Escapes wildcards.")  # the `---` doc comment joins it
    assert by_name["M.strip_archive_subpath"].content.startswith("--- Strips")
    assert by_name["M.strip_archive_subpath"].start_line == 18 and by_name["helper"].end_line == 25
    assert any("M.count, M.total" in c.content and c.kind == "module" for c in chunks)  # two names: no function


def test_lua_types_declared_by_luals_annotations_are_classes() -> None:
    # telescope.nvim, lazy.nvim: `---@class X` over the table that is X, or a type declared by comment lines alone
    source = ("local Object = require('plenary.class')\n\n---@class uv_pipe_t\n---@field close function\n\n"
              "---@class Hooks\n---@field init fun()\n---@enum Kind\n---@field a integer\n\n"
              "--- Reads a pipe's output\n---@class (exact) LinesPipe : BasePipe, table<string, any>\n"
              "---@field buffer string[]\nlocal LinesPipe = Object:extend()\n\n"
              "function LinesPipe:read()\n  return self.buffer\nend\n\nreturn LinesPipe\n")
    chunks = Chunker().chunk("lua/telescope/async_job.lua", source, "lua")
    classes = [(c.symbol, c.start_line, c.end_line, c.implements) for c in chunks if c.kind == "class"]
    assert classes == [("uv_pipe_t", 3, 4, []), ("Hooks", 6, 7, []), ("Kind", 8, 9, []),
                       ("LinesPipe", 11, 14, ["BasePipe"])]  # with its description; `table` is no supertype
    assert [c.symbol for c in chunks if c.kind == "function"] == ["LinesPipe:read"]
    # a `---@meta` file declares the types of code that lives elsewhere (nvim-lspconfig's server settings): as before
    meta = Chunker().chunk("lua/types/pyright.lua", "---@meta\n\n" + source, "lua")
    assert not [c for c in meta if c.kind == "class"]


def test_lua_tables_of_functions_are_classes_with_their_functions_as_members() -> None:
    # mini.nvim's `H.filtersort = { prefix = function ... end, ... }`, lazy.nvim's task tables `M.build = { run = ... }`
    body = "".join(f"    local step{k} = self:step({k})\n" for k in range(60))
    source = ("local M = {}\n\n--- Sorts by prefix or not at all.\nH.filtersort = {\n"
              "  prefix = function(items, base) return items end,\n  none = function(items) return items end,\n"
              "  limit = 10,\n}\n\nM.build = {\n  skip = function(plugin) return false end,\n"
              "  run = function(self)\n" + body + "  end,\n}\n\nM.names = { 'a', 'b' }\n\nreturn M\n")
    chunks = Chunker(max_tokens=256).chunk("lua/lazy/manage/task/plugin.lua", source, "lua")
    sort = next(c for c in chunks if c.symbol == "H.filtersort")
    assert sort.kind == "class" and sort.start_line == 3 and sort.symbols == [
        "H.filtersort", "H.filtersort.prefix", "H.filtersort.none"]
    # a table too large for one chunk: a header and one chunk per function, as a large class
    assert [(c.kind, c.symbol) for c in chunks if c.symbol.startswith("M.build") and c.kind != "part"] == [
        ("class", "M.build"), ("function", "M.build.skip"), ("function", "M.build.run")]
    assert not any(c.symbol == "M.names" for c in chunks)  # no function in it: module code


def test_swift_types_extensions_and_protocols_are_named_with_their_doc_comments() -> None:
    body = "".join(f"        let part{k} = request.part{k}\n" for k in range(30))
    source = ("import Foundation\n\n/// Sends requests.\n///\n/// Owns its URLSession.\nopen class Session {\n"
              "    /// Sends one request.\n    public func send(_ request: Request) -> Int {\n" + body + "        return 1\n"
              "    }\n\n    struct Pending {\n        func go() {}\n    }\n}\n\n"
              "/// Headers as a collection.\nextension HTTPHeaders: Collection {\n    public var startIndex: Int { 0 }\n}\n\n"
              "/// Evaluates server trust.\npublic protocol ServerTrustEvaluating: Sendable {\n"
              "    func evaluate(_ trust: SecTrust, forHost host: String) throws\n}\n")
    chunks = Chunker(max_tokens=200).chunk("Source/Core/Session.swift", source, "swift")
    send = next(c for c in chunks if c.symbol == "Session.send")
    assert send.kind == "function" and send.content.lstrip().startswith("/// Sends one request.")
    session = next(c for c in chunks if c.symbol == "Session" and c.kind == "class")  # the split class's header
    assert session.content.startswith("/// Sends requests.") and "Session.Pending" in session.symbols
    extension = next(c for c in chunks if c.symbol == "HTTPHeaders")  # named after the type it extends
    assert extension.kind == "class" and extension.implements == ["Collection"]
    assert extension.content.startswith("/// Headers as a collection.")
    protocol = next(c for c in chunks if c.symbol == "ServerTrustEvaluating")
    assert protocol.kind == "class" and protocol.implements == ["Sendable"]


def test_swift_computed_properties_stay_in_their_types_chunk_and_file_level_ones_are_module_code() -> None:
    source = ("import Foundation\n\n/// Creates and verifies hashes.\npublic var Bcrypt: BCryptDigest {\n"
              "    return .init()\n}\n\npublic let defaultCost = 12\n\nextension Request {\n"
              "    /// The session of this request.\n    public var session: Session {\n        self.cache.session\n"
              "    }\n\n    var flag: Bool = false\n}\n")
    chunks = Chunker().chunk("Sources/Vapor/Request+Session.swift", source, "swift")
    spans = [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunks]
    assert spans == [("module", "", 1, 8), ("class", "Request", 10, 17)]  # a file-level property, as a constant
    assert chunks[1].symbols == ["Request", "Request.session"]  # a type's computed properties stay in its chunk,
    # named among its members; the stored `flag` is no definition
    body = "".join(f"        let part{k} = request.part{k}\n" for k in range(12))
    split = ("extension Request {\n    public var session: Session {\n        self.cache.session\n    }\n\n"
             "    func send() {\n" + body + "    }\n\n    func reset() {\n" + body + "    }\n}\n")
    header, *methods = Chunker(max_tokens=200).chunk("Sources/Vapor/Request+Session.swift", split, "swift")
    assert (header.kind, header.start_line, header.end_line) == ("class", 1, 4)  # a split type's header lists it
    assert header.symbols == ["Request", "Request.send", "Request.reset", "Request.session"]
    assert [m.symbol for m in methods] == ["Request.send", "Request.reset"]


def test_swift_section_marks_are_no_chunks_of_their_own() -> None:
    body = "".join(f"        let part{k} = request.part{k}\n" for k in range(12))
    source = ("import NIOCore\n\nfunc helper() {}\n\n// MARK: Basic\n\n/// Basic authentication.\n"
              "public protocol BasicAuthenticator {\n    func authenticate(basic: String)\n}\n\nfinal class Session {\n"
              "    func send() {\n" + body + "    }\n\n    // MARK: - Private\n\n    func reset() {\n" + body + "    }\n}\n")
    chunks = Chunker(max_tokens=200).chunk("Sources/Vapor/Authenticator.swift", source, "swift")
    assert not any("MARK:" in c.content for c in chunks)  # neither between definitions nor inside a split type
    assert [c.symbol for c in chunks] == ["", "helper", "BasicAuthenticator", "Session", "Session.send", "Session.reset"]
    assert chunks[2].content.startswith("/// Basic authentication.")
    # in another language the same line is an ordinary comment, kept
    kotlin = Chunker().chunk("a.kt", "// MARK: Basic\n\nfun f() = 1\n", "kotlin")
    assert "MARK:" in kotlin[0].content


def test_swift_subscripts_and_deinit_are_functions_named_by_their_keyword() -> None:
    body = "".join(f"        let part{k} = request.part{k}\n" for k in range(12))
    source = ("final class Storage {\n    var values: [String: Any] = [:]\n\n    /// Reads a value by its key type.\n"
              "    public subscript<Key>(_ key: Key.Type) -> Key.Value? {\n        get {\n" + body + "        }\n"
              "    }\n\n    deinit {\n" + body + "    }\n}\n")
    whole = Chunker().chunk("Sources/Vapor/Utilities/Storage.swift", source, "swift")
    assert [(c.symbol, c.symbols) for c in whole] == [("Storage", ["Storage", "Storage.subscript", "Storage.deinit"])]
    split = Chunker(max_tokens=200).chunk("Sources/Vapor/Utilities/Storage.swift", source, "swift")
    subscript = next(c for c in split if c.symbol == "Storage.subscript")  # not `Storage.Key` (its result type)
    assert subscript.kind == "function" and subscript.content.lstrip().startswith("/// Reads a value")
    assert any(c.symbol == "Storage.deinit" and c.kind == "function" for c in split)


def test_swift_initialisers_and_protocol_requirements_are_named() -> None:
    body = "".join(f"        let part{k} = routes.part{k}\n" for k in range(14))
    source = ("/// Passes requests on.\npublic protocol Middleware: Sendable {\n    /// Called with each request.\n"
              "    func respond(to request: Request, chainingTo next: Responder) -> Response\n}\n\n"
              "internal struct DefaultResponder: Responder {\n    private let router: Router\n\n"
              "    /// Builds the chain of middleware for every route.\n    public init(routes: Routes) {\n" + body +
              "    }\n\n    func respond(to request: Request) -> Response {\n" + body + "    }\n}\n")
    chunks = Chunker(max_tokens=200).chunk("Sources/Vapor/Responder/DefaultResponder.swift", source, "swift")
    protocol = next(c for c in chunks if c.symbol == "Middleware")  # its requirement is named among its members
    assert protocol.kind == "class" and protocol.symbols == ["Middleware", "Middleware.respond"]
    init = next(c for c in chunks if c.symbol == "DefaultResponder.init")  # a function with its doc, not a part
    assert init.kind == "function" and init.content.lstrip().startswith("/// Builds the chain")
    header = next(c for c in chunks if c.symbol == "DefaultResponder" and c.kind == "class")
    assert header.symbols == ["DefaultResponder", "DefaultResponder.init", "DefaultResponder.respond"]
    assert not any(c.kind == "part" for c in chunks)


def test_swift_extension_adding_one_function_is_that_function() -> None:
    source = ("public extension ObservableType {\n    /// Projects each element into a new form.\n"
              "    func map<R>(_ transform: @escaping (Element) throws -> R) -> Observable<R> {\n"
              "        Map(source: asObservable(), transform: transform)\n    }\n}\n\n"
              "extension ObservableType {\n    func take(_ count: Int) -> Observable<Element> { take(count) }\n"
              "    func take(for duration: Int) -> Observable<Element> { take(duration) }\n}\n\n"
              "extension ObservableType {\n    func skip(_ count: Int) -> Observable<Element> { skip(count) }\n"
              "    var first: Element? { nil }\n}\n\n"
              "extension Request: Sendable {\n    func send() {}\n}\n")
    chunks = Chunker().chunk("Sources/RxSwift/Map.swift", source, "swift")
    # named as Kotlin's `fun ObservableType.map()`; overloads of one name too; not with a property beside it, nor
    # an extension that adds a conformance
    assert [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunks] == [
        ("function", "ObservableType.map", 1, 6), ("function", "ObservableType.take", 8, 11),
        ("class", "ObservableType", 13, 16), ("class", "Request", 18, 20)]
    assert chunks[0].symbols == ["ObservableType.map"]


def test_bash_functions_in_both_syntaxes_keep_their_comment_headers() -> None:
    source = ("#!/usr/bin/env bash\n# shellcheck shell=bash\n\n# Enables a plugin by name.\n# Usage: _enable-plugin NAME\n"
              "function _enable-plugin() {\n\t_enable-thing \"plugins\" \"plugin\" \"$1\"\n}\n\n"
              "# Disables it.\n_disable_plugin() {\n\techo \"$1\"\n}\n\nalias ll='ls -la'\n")
    chunks = Chunker().chunk("bin/bash-it", source, "bash")
    functions = {c.symbol: c for c in chunks if c.kind == "function"}
    assert set(functions) == {"_enable-plugin", "_disable_plugin"}
    assert functions["_enable-plugin"].content.startswith("# Enables a plugin by name.")
    assert functions["_disable_plugin"].start_line == 10


def test_shell_functions_inside_a_group_or_an_if_are_the_files_own() -> None:
    # nvm.sh wraps its 4,800 lines in `{ ... }` so that a half-downloaded copy never runs; scripts define a function
    # per platform under `if`/`else`: both were line windows, not functions
    body = "".join(f"  echo step{k}\n" for k in range(6))
    source = ("# Node Version Manager\n{ # the whole script is downloaded\n\nNVM_DIR=~/.nvm\n\n# Prints its arguments.\n"
              f"nvm_echo() {{\n{body}}}\n\nif command -v flock >/dev/null; then\n  run_locked() {{\n    flock \"$@\"\n  }}\n"
              "elif command -v shlock >/dev/null; then\n  run_locked() {\n    shlock \"$@\"\n  }\nelse\n"
              "  run_locked() {\n    \"$@\"\n  }\nfi\n\nif [ -n \"$DEBUG\" ]; then\n  set -x\nfi\n\n} # end\n")
    chunks = Chunker().chunk("nvm.sh", source, "bash")
    functions = [(c.symbol, c.start_line, c.end_line) for c in chunks if c.kind == "function"]
    assert functions == [("nvm_echo", 6, 14), ("run_locked", 16, 19), ("run_locked", 20, 23), ("run_locked", 25, 27)]
    assert chunks[0].kind == "module" and "NVM_DIR=~/.nvm" in chunks[0].content
    assert any(c.kind == "module" and "set -x" in c.content for c in chunks)  # an `if` without functions stays code


def test_a_long_shell_dispatcher_is_cut_at_its_subcommands() -> None:
    # nvm's `nvm()` is a `case` over 1,500 lines, one branch per subcommand: each branch is a function named after its
    # subcommand, the opening lines are the function, the default branch a part of it
    def branch(word: str) -> str:
        return f"    \"{word}\")\n" + "".join(f"      nvm_echo \"{word} step {k} of the work\"\n" for k in range(12)) + "    ;;\n"
    source = ("nvm() {\n  local COMMAND\n  COMMAND=\"${1-}\"\n  shift\n  case $COMMAND in\n"
              + branch("install") + "    \"use\" | \"u\")\n      nvm_change_path \"$PATH\"\n    ;;\n"
              + branch("uninstall") + branch("ls") + branch("--version")
              + "    *)\n      >&2 nvm --help\n      return 127\n    ;;\n  esac\n}\n")
    chunker = Chunker(max_tokens=256)
    spans = [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunker.chunk("nvm.sh", source, "bash")]
    assert spans == [("function", "nvm", 1, 5), ("function", "nvm.install", 6, 19), ("function", "nvm.use", 20, 22),
                     ("function", "nvm.uninstall", 23, 36), ("function", "nvm.ls", 37, 50),
                     ("function", "nvm.--version", 51, 64), ("part", "nvm", 65, 70)]
    # each branch is what a command line runs, which a question writes as words ("how nvm use switches versions")
    assert [command_line(c) for c in chunker.chunk("nvm.sh", source, "bash")] == [
        "", "nvm install", "nvm use", "nvm uninstall", "nvm ls", "nvm --version", ""]
    assert command_line(Chunker().chunk("util.lua", "function M.use()\n  return 1\nend\n", "lua")[0]) == ""
    # a `case` on options, or one that fits a chunk, is the function's own logic
    options = source.replace('"install")', "-i)").replace('"uninstall")', "-x)").replace('"ls")', "-l)")
    assert [c.symbol for c in chunker.chunk("nvm.sh", options, "bash")] == ["nvm"] * 3
    assert [c.symbol for c in Chunker(max_tokens=2048).chunk("nvm.sh", source, "bash")] == ["nvm"]


def test_shell_help_text_and_lua_definition_files_read_as_documentation() -> None:
    # a usage message of printed lines, or of a heredoc `cat` prints, is help text; a heredoc fed to another
    # interpreter is code, and so is a function that prints a line among its work
    usage = "".join(f"  echo '  nvm {word} <version>     what {word} does'\n" for word in ("install", "use", "ls", "alias"))
    printed = "usage() {\n  local name\n  name=\"$1\"\n" + usage * 2 + "}\n"
    heredoc = "usage() {\n  cat <<-EOF\n" + "".join(f"    -{k}  option {k}\n" for k in "abcdefgh") + "  EOF\n}\n"
    script = heredoc.replace("cat <<-EOF", "python3 - <<-EOF")
    work = "sync() {\n" + "".join(f"  step_{k} \"$1\" || return 1\n" for k in range(8)) + "  echo 'done'\n}\n"
    chunker = Chunker()
    assert [c.documentation for text in (printed, heredoc, script, work) for c in chunker.chunk("x.sh", text, "bash")] \
        == [True, True, False, False]
    assert not any(c.documentation for c in chunker.chunk("x.py", "def usage():\n" + "    print('x')\n" * 9, "python"))
    # a LuaLS definition file declares what the language server should know, and never runs
    types = "---@class Settings\n---@field cmd string[]\nlocal Settings = {}\n\nfunction Settings.new() end\n"
    assert [c.documentation for c in chunker.chunk("types/x.lua", "---@meta\n\n" + types, "lua")] == [True, True]
    assert not any(c.documentation for c in chunker.chunk("x.lua", types, "lua"))


def test_bats_tests_are_functions_named_by_their_titles() -> None:
    # bash reads `@test "title" {` as a command and the body as the statements after it, up to a `}` command
    source = ("#!/usr/bin/env bats\n\nsetup() {\n  load test_helper\n}\n\n# Enabling twice is harmless.\n"
              "@test \"enable a plugin twice\" {\n  run enable jump\n  if true; then\n    { echo ok; }\n  fi\n"
              "  [ \"$status\" -eq 0 ]\n}\n\n@test 'disable' { run disable jump; }\n")
    chunks = Chunker().chunk("test/plugins.bats", source, "bash")
    spans = [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunks]
    assert spans == [("module", "", 1, 1), ("function", "setup", 3, 5), ("function", "enable a plugin twice", 7, 14),
                     ("function", "disable", 16, 16)]


def test_zig_functions_struct_constants_and_tests_are_definitions() -> None:
    body = "".join(f"        self.count += {k};\n" for k in range(30))
    source = ("const std = @import(\"std\");\n\n/// Adds two numbers.\npub fn add(a: u32, b: u32) u32 {\n"
              "    return a + b;\n}\n\n/// Parses arguments.\npub const Parser = struct {\n    count: u32,\n\n"
              "    /// Reads one flag.\n    pub fn next(self: *Parser) !void {\n" + body + "    }\n\n"
              "    pub fn reset(self: *Parser) void {\n" + body + "    }\n};\n\n"
              "test \"add adds\" {\n    try std.testing.expect(add(1, 2) == 3);\n}\n")
    chunks = Chunker(max_tokens=200).chunk("src/args.zig", source, "zig")
    kinds = {(c.symbol, c.kind) for c in chunks if c.symbol}
    assert {("add", "function"), ("Parser.next", "function"), ("Parser.reset", "function"), ("add adds", "function"),
            ("Parser", "class")} <= kinds
    add = next(c for c in chunks if c.symbol == "add")
    assert add.content.startswith("/// Adds two numbers.") and add.end_line == 6
    assert next(c for c in chunks if c.symbol == "Parser.next").content.lstrip().startswith("/// Reads one flag.")


def test_dart_functions_span_their_signature_and_body_and_mixins_and_extensions_are_classes() -> None:
    source = ("import 'dart:io';\n\n/// Adds.\nint add(int a, int b) {\n  return a + b;\n}\n\n"
              "/// Sends requests.\nclass Client extends Base with Retry implements Closeable {\n  final String url;\n"
              "  Client(this.url);\n\n  /// Fetches a path.\n  @override\n  Future<String> fetch(String path) async {\n"
              + "".join(f"    final part{k} = await read(path, {k});\n" for k in range(30)) + "    return path;\n  }\n\n"
              "  String get name => url;\n\n  void close();\n}\n\nmixin Logger on Base {\n  void log(String m) {}\n}\n\n"
              "extension Blank on String {\n  bool get isBlank => trim().isEmpty;\n}\n")
    chunks = Chunker(max_tokens=200).chunk("lib/src/client.dart", source, "dart")
    add = next(c for c in chunks if c.symbol == "add")
    assert (add.kind, add.start_line, add.end_line) == ("function", 3, 6)  # doc, signature and body
    fetch = next(c for c in chunks if c.symbol == "Client.fetch")
    # its doc comment and its `@override` (a sibling before the signature in Dart's grammar) are the method's
    assert fetch.kind == "function" and fetch.content.lstrip().startswith("/// Fetches a path.\n  @override")
    # the body, not only the signature line: its windows run to the method's closing brace (line 47)
    assert max(c.end_line for c in chunks if c.symbol == "Client.fetch") == 47
    assert any(c.symbol == "Client.name" and c.kind == "function" for c in chunks)
    header = next(c for c in chunks if c.symbol == "Client" and c.kind == "class")
    assert header.implements == ["Base", "Retry", "Closeable"]
    assert {c.symbol: c.kind for c in chunks if c.symbol in ("Logger", "Blank")} == {"Logger": "class", "Blank": "class"}


PHP_HELPERS = """<?php

use Illuminate\\Support\\Arr;

if (! function_exists('append_config')) {
    /**
     * Assign high numeric IDs to a config item to force appending.
     */
    function append_config(array $array)
    {
        $start = 9999;
        foreach ($array as $key => $value) {
            if (is_numeric($key)) {
                $array[++$start] = Arr::pull($array, $key);
            }
        }

        return $array;
    }
}

if (! function_exists('blank')) {
    /**
     * Determine if the given value is "blank".
     */
    function blank($value)
    {
        return is_null($value) || $value === '';
    }
}
"""

PHP_LEVEL = """<?php declare(strict_types=1);

namespace Monolog;

use Psr\\Log\\LogLevel;

/**
 * The logging levels.
 */
enum Level: int
{
    case Debug = 100;

    /**
     * @param value-of<self::NAMES> $name
     */
    #[\\ReturnTypeWillChange]
    public static function fromName(string $name): self
    {
        return self::Debug;
    }

    public const VALUES = [100];
}

trait ProcessableHandlerTrait
{
    public function pushProcessor(callable $callback): void
    {
    }
}
"""


def test_php_functions_guarded_by_function_exists_are_chunks_of_their_own() -> None:
    # Laravel's helpers.php: every helper sits in `if (! function_exists(...)) {...}`; they were unnamed windows
    chunks = Chunker(max_tokens=60).chunk("src/helpers.php", PHP_HELPERS, "php")
    functions = {c.symbol: c for c in chunks if c.kind == "function"}
    assert list(functions) == ["append_config", "blank"]
    assert "/**\n     * Determine if the given value is \"blank\".\n     */\n    function blank($value)" in functions[
        "blank"].content
    # each guard's closing `}` ends the function it guards (it opened the next helper's chunk)
    assert functions["blank"].content.startswith("if (! function_exists('blank')) {")
    assert not any(c.content.startswith("}") for c in chunks)
    # an `if` of another language's file stays a statement: Python's guarded definitions are module code as before
    python = "import sys\n\nif sys.platform == 'win32':\n    def fix(path):\n        return path.replace('/', '\\\\')\n"
    assert [c.kind for c in Chunker(max_tokens=60).chunk("compat.py", python, "python")] == ["module"]


def test_php_types_of_a_braced_namespace_are_named_as_under_a_namespace_statement() -> None:
    # `namespace App\Models { ... }` named its types `App\Models.HasName`; `namespace App\Models;` names them `HasName`
    body = "interface HasName\n{\n    public function name(): string;\n}\n\nfunction helper(): int\n{\n    return 1;\n}\n"
    braced = "<?php\n\nnamespace App\\Models {\n" + body + "}\n"
    plain = "<?php\n\nnamespace App\\Models;\n\n" + body
    for text in (braced, plain):
        chunks = Chunker(max_tokens=60).chunk("src/Models.php", text, "php")
        assert [c.symbol for c in chunks if c.symbol] == ["HasName", "helper"]


def test_php_enums_and_traits_are_classes_with_their_docblocks_and_attributes() -> None:
    chunks = Chunker(max_tokens=60).chunk("src/Level.php", PHP_LEVEL, "php")
    named = {(c.symbol, c.kind): c for c in chunks if c.symbol}
    assert ("Level", "class") in named and ("ProcessableHandlerTrait", "class") in named
    method = named[("Level.fromName", "function")]
    assert method.content.lstrip().startswith("/**\n     * @param value-of<self::NAMES> $name")
    assert "#[\\ReturnTypeWillChange]\n    public static function fromName" in method.content
    assert named[("Level", "class")].content.startswith("/**\n * The logging levels.\n */\nenum Level: int")


def test_definitions_sharing_a_minified_line_are_one_chunk_not_one_copy_of_the_line_each() -> None:
    # a bundle's line holds hundreds of functions; chunks are whole lines, so each held the whole line again
    # (Laravel's dist/scripts.js: 649 chunks, 36.9 MB of text for a 717 KB file)
    body = "".join(f"function f{i}(a){{return a+{i}}}" for i in range(60)) + "var pad=" + "1+" * 400 + "1;"
    minified = "/*! bundle */\n" + body + "\nfunction tail(x) {\n  return x;\n}\n"
    chunks = Chunker().chunk("dist/app.js", minified, "javascript")
    holding = [c for c in chunks if "function f0(" in c.content]
    assert len(holding) == 1 and holding[0].symbols[:3] == ["f0", "f1", "f2"] and "f59" in holding[0].symbols
    assert sum(len(c.content) for c in chunks) < 2 * len(minified)
    assert any(c.symbol == "tail" for c in chunks)
    # two short definitions on one line keep a chunk each, as before
    short = "function a(x) { return x; } function b(y) { return y; }\n"
    assert [c.symbol for c in Chunker().chunk("src/ab.js", short, "javascript")] == ["a", "b"]


def test_a_c_function_defined_inside_a_macro_call_is_named_by_itself_not_the_macro() -> None:
    text = """/* Updates the loop's cached time. */
UV_UNUSED(static void uv__update_time(uv_loop_t* loop)) {
  loop->time = uv__hrtime() / 1000000;
}

UV_UNUSED(static const char* uv__basename_r(const char* path)) {
  const char* s = strrchr(path, '/');
  return s == NULL ? path : s + 1;
}
"""
    chunks = Chunker(max_tokens=512).chunk("internal.h", text, "c")
    assert [(c.symbol, c.kind, c.start_line) for c in chunks] == [
        ("uv__update_time", "function", 1), ("uv__basename_r", "function", 6)]


def test_a_c_macro_of_three_lines_or_more_is_a_function_chunk_and_a_one_line_macro_stays_module_code() -> None:
    text = """#include <stddef.h>
#define listFirst(l) ((l)->head)

/* Runs `body` for each entry of the table. */
#define dictForEach(d, e, body) \\
    do { \\
        for (e = (d)->first; e != NULL; e = e->next) body; \\
    } while (0)

int dict_size(const dict *d) { return d->size; }
"""
    chunks = Chunker(max_tokens=512).chunk("dict.h", text, "c")
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("", "module", 1, 2), ("dictForEach", "function", 4, 8), ("dict_size", "function", 10, 10)]


CSHARP_DIRECTIVES = """namespace Packing
{
    public class Codec
    {
        #region Reading

        /// <summary>Reads one frame from the stream and checks its length.</summary>
        public int ReadFrame(byte[] buffer)
        {
            int length = buffer[0];
            if (length > buffer.Length) throw new System.IO.InvalidDataException("frame longer than its buffer");
            return length;
        }

        #endregion

#if HAVE_BINARY_SERIALIZATION
        /// <summary>Restores a codec from serialized state.</summary>
#pragma warning disable SYSLIB0051
        public Codec(System.Runtime.Serialization.SerializationInfo info, int version)
        {
            Version = version + info.MemberCount;
        }
#pragma warning restore SYSLIB0051
#endif

        /// <summary>Writes one frame, its length first, then its bytes.</summary>

        public void WriteFrame(System.IO.Stream stream, byte[] frame)
        {
            stream.WriteByte((byte)frame.Length);
            stream.Write(frame, 0, frame.Length);
        }

        public int Version { get; }
    }
}
"""


def test_csharp_directives_belong_to_the_member_below_them_and_make_no_chunk_of_their_own() -> None:
    # `#region`, `#pragma`, `#if X` lines were chunks of their own (or cut a doc comment from its member); a doc
    # comment above a blank line is still its member's (C#'s compiler reads it so)
    chunks = Chunker(max_tokens=64).chunk("Codec.cs", CSHARP_DIRECTIVES, "csharp")
    by_name = {c.symbol.rsplit(".", 1)[-1]: c for c in chunks if c.kind == "function"}
    assert set(by_name) == {"ReadFrame", "Codec", "WriteFrame"}
    assert by_name["ReadFrame"].content.lstrip().startswith("#region Reading\n\n        /// <summary>Reads one frame")
    assert by_name["Codec"].content.startswith("#if HAVE_BINARY_SERIALIZATION\n        /// <summary>Restores a codec")
    assert "public Codec(" in by_name["Codec"].content
    assert by_name["WriteFrame"].content.lstrip().startswith("/// <summary>Writes one frame")
    for chunk in chunks:
        rest = [line for line in chunk.content.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        assert rest and not hollow("\n".join(rest)), chunk.content


def test_hash_lines_of_other_languages_stay_as_they_were() -> None:
    # the same lines are comments in Python: a file of them keeps its chunk
    text = "import os\n\n# region helpers\n# if the cache is cold, warm it\n#endregion\n\n\ndef warm():\n    return os.sep\n"
    chunks = Chunker(max_tokens=512).chunk("warm.py", text, "python")
    assert any("# if the cache is cold" in c.content for c in chunks)


def test_a_csharp_partial_type_opened_only_to_hold_a_nested_one_makes_no_chunk_named_after_it() -> None:
    # Dapper's SqlMapper.GridReader.cs: the `partial class SqlMapper {` lines define nothing; as a class chunk they
    # answered `SqlMapper` before SqlMapper.cs, which defines it (as did 29 other files of the same shape)
    members = "".join(
        f"            /// <summary>Reads result set {i} as a list of rows.</summary>\n"
        f"            public int Read{i}() {{ return reader.GetInt32({i}) + reader.FieldCount * {i}; }}\n\n"
        for i in range(6))
    text = ("namespace Dapper\n{\n    public static partial class SqlMapper\n    {\n"
            "        public partial class GridReader\n        {\n            private int reader;\n\n"
            f"{members}        }}\n    }}\n}}\n")
    chunks = Chunker(max_tokens=64).chunk("SqlMapper.GridReader.cs", text, "csharp")
    assert "Dapper.SqlMapper" not in {c.symbol for c in chunks}
    header = next(c for c in chunks if c.symbol == "Dapper.SqlMapper.GridReader" and c.kind == "class")
    assert header.content.lstrip().startswith("public partial class GridReader")
    whole = Chunker(max_tokens=64).chunk("SqlMapper.cs", text.replace(" partial", ""), "csharp")
    assert any(c.symbol == "Dapper.SqlMapper" and c.kind == "class" for c in whole)  # not partial: as it was


SERIALIZER_FIELDS = "".join(
    f"        /// <summary>\n        /// Gets or sets option {i}; the remarks run on for lines about settings nobody asks for.\n"
    f"        /// </summary>\n        public static int Option{i} {{ get; set; }} = {i};\n\n" for i in range(4))
SERIALIZER_METHODS = "".join(
    f"        /// <summary>Serializes value {i} to the stream.</summary>\n"
    f"        public static void Serialize{i}(System.IO.Stream stream, int value)\n        {{\n"
    + "".join(f"            stream.WriteByte((byte)(value >> {k}));\n" for k in range(8)) + "        }\n\n"
    for i in range(4))


def test_a_split_csharp_type_header_is_its_opening_and_its_fields_are_a_part() -> None:
    # messagepack's MessagePackSerializer header was mostly its DefaultOptions property's doc: no candidate for "how
    # objects are serialized" while its members' names were there; other languages keep their fields in the header
    body = SERIALIZER_FIELDS + SERIALIZER_METHODS + "    }\n"
    cases = [("csharp", "Serializer.cs", "Packing.Serializer", "namespace Packing\n{\n    /// <summary>High-level API."
              "</summary>\n    public static class Serializer\n    {\n" + body + "}\n"),
             ("java", "Serializer.java", "Serializer", "package packing;\n\n/** High-level API. */\npublic final class "
              "Serializer {\n" + body.replace("/// <summary>", "/** ").replace("</summary>", " */")
              .replace("System.IO.Stream", "java.io.OutputStream").replace("stream.WriteByte", "stream.write")
              .replace(" { get; set; } =", " =").replace("public static void", "public static void"))]
    for language, path, symbol, text in cases:
        chunks = Chunker(max_tokens=128).chunk(path, text, language)
        header = next(c for c in chunks if c.symbol == symbol and c.kind == "class")
        assert symbol + ".Serialize3" in header.symbols
        assert "High-level API" in header.content
        assert ("Option0" in header.content) is (language == "java"), (language, header.content)
        if language == "csharp":
            assert header.content.rstrip().endswith("{")
            parts = "\n".join(c.content for c in chunks if c.symbol == symbol and c.kind == "part")
            assert "Option0" in parts and "Option3" in parts


def test_a_java_method_declared_without_a_body_is_bodiless() -> None:
    # jackson-core's PrettyPrinter: an interface whose methods are declarations with a Javadoc (`{@link}` in it); an
    # abstract class's abstract method is one too, its other methods, a default method and other languages are not
    interface = ("package core;\n\n/** Pretty printing, as {@link Indenter} does. */\npublic interface Printer {\n"
                 + "".join(f"    /**\n     * Writes the {n} separator; see {{@link Writer#write}}.\n     */\n"
                           f"    void write{n.title()}(Writer out) throws IOException;\n\n"
                           for n in ("root", "entry", "array", "object"))
                 + "    default void flush(Writer out) {\n        out.flush();\n    }\n}\n")
    base = ("public abstract class Base {\n    /** The parser's input. */\n    protected abstract Input\n"
            "        open(Source source)\n        throws IOException;\n\n    public int count() {\n        return 1;\n    }\n}\n")
    for path, text in (("Printer.java", interface), ("Base.java", base)):
        chunks = Chunker(max_tokens=48).chunk(path, text, "java")
        flagged = {c.symbol for c in chunks if bodiless(c)}
        functions = {c.symbol for c in chunks if c.kind == "function"}
        assert flagged == ({f"Printer.write{n}" for n in ("Root", "Entry", "Array", "Object")} if path == "Printer.java"
                           else {"Base.open"}), (flagged, functions)
        assert functions - flagged == ({"Printer.flush"} if path == "Printer.java" else {"Base.count"})
    csharp = ("namespace N\n{\n    public interface IPrinter\n    {\n        /// <summary>Writes.</summary>\n"
              "        void Write(string text);\n\n        /// <summary>Flushes.</summary>\n        void Flush();\n    }\n}\n")
    assert not any(bodiless(c) for c in Chunker(max_tokens=16).chunk("IPrinter.cs", csharp, "csharp"))


def test_a_java_method_that_only_returns_or_stores_a_field_is_an_accessor() -> None:
    # commons-csv's CSVFormat: getters, a builder's setters returning `this`, a constructor keeping its argument, a
    # one-line override; a method that computes, calls, checks or builds is not, nor is another language's getter
    text = ("public final class Format {\n    private final char quote;\n    private boolean ignore;\n\n"
            "    /** Creates a format; see {@link #getQuote()}. */\n    Format(char quote) {\n        this.quote = quote;\n    }\n\n"
            "    /**\n     * Gets whether empty lines between records are ignored when parsing input.\n     */\n"
            "    public boolean getIgnore() {\n        return ignore;\n    }\n\n"
            "    public Format setIgnore(final boolean ignore) {\n        this.ignore = ignore; // kept\n        return this;\n    }\n\n"
            "    @Override public char getQuote() { return quote; }\n\n"
            "    public String getDelimiter() {\n        return Constants.COMMA;\n    }\n\n"
            "    public String quoted() {\n        return quote + \"x\" + quote;\n    }\n\n"
            "    public Format checked(final boolean ignore) {\n        if (ignore) {\n            return this;\n        }\n"
            "        return null;\n    }\n\n"
            "    public void reset() {\n        clear();\n    }\n\n"
            "    public Format copy() {\n        return new Format(quote);\n    }\n\n"
            "    abstract boolean isEmpty();\n}\n")
    chunks = Chunker(max_tokens=48).chunk("Format.java", text, "java")
    flagged = {c.symbol for c in chunks if accessor(c)}
    functions = {c.symbol for c in chunks if c.kind == "function"}
    assert flagged == {"Format.Format", "Format.getIgnore", "Format.setIgnore", "Format.getQuote",
                       "Format.getDelimiter"}, (flagged, functions)
    assert {"Format.quoted", "Format.checked", "Format.reset", "Format.copy"} <= functions - flagged
    kotlin = "class Format(val quote: Char) {\n    fun getQuote(): Char {\n        return quote\n    }\n}\n"
    csharp = "class Format\n{\n    char quote;\n    public char GetQuote()\n    {\n        return quote;\n    }\n}\n"
    assert not any(accessor(c) for c in Chunker(max_tokens=16).chunk("Format.kt", kotlin, "kotlin"))
    assert not any(accessor(c) for c in Chunker(max_tokens=16).chunk("Format.cs", csharp, "csharp"))


RUBY_ONE_LINE = '''class Action
  # Whether sessions are enabled for the action.
  def session_enabled?
    @session_enabled
  end

  def use(middleware, *args, &block)
    app.use(middleware, *args, &block)
  end

  def name = @name

  def body=(str)
    @body = str
  end

  def format=(value)
    format, content_type = detect(value)
    headers["Content-Type"] = content_type
  end

  def ==(other)
    other.class == self.class &&
      other.name == name
  end

  def finish
    if session_enabled?
      write_session
    end
  end

  def token; @token; end
end
'''


def test_a_ruby_method_whose_body_is_one_line_is_an_accessor() -> None:
    # hanami-controller's `session_enabled?` (`@session_enabled`) above the methods that write the session; cuba's
    # `use`, which hands its arguments to the builder: a one-line body (or an endless `def name = value`) does no
    # work a sentence describes; a signature's `=` (a setter, `==`) does not make one line (two straight lines, as
    # `format=` and `==` are, are marked for that: test_a_ruby_method_whose_body_runs_straight_through_is_an_accessor)
    chunks = Chunker(max_tokens=64).chunk("lib/action.rb", RUBY_ONE_LINE, "ruby")
    functions = {c.symbol for c in chunks if c.kind == "function"}
    flagged = {c.symbol for c in chunks if c.kind == "function" and accessor(c)}
    assert flagged == {"Action.session_enabled?", "Action.use", "Action.name", "Action.body=", "Action.token",
                       "Action.format=", "Action.=="}, (flagged, functions)
    assert "Action.finish" in functions - flagged
    # the first window of a method cut into windows holds no `end` of its own: not one line
    windows = Chunker(max_tokens=16).chunk("lib/action.rb", RUBY_ONE_LINE, "ruby")
    assert not [c.symbol for c in windows if accessor(c) and c.symbol in ("Action.use", "Action.finish")]


RUBY_STRAIGHT = '''class Actions
  def initialize(base, config = {})
    @base = base
    @config = {verbose: true}.merge(config)
  end

  def create_link(destination, *args)
    config = args.last.is_a?(Hash) ? args.pop : {}
    source = args.first
    action CreateLink.new(self, destination, source, config)
  end

  def do_GET(req, res)
    res.body = render(req)
    res.status = 200
  end

  def insert(path, text)
    content = File.read(path)
    content.sub!(/\\A/, text) unless content.include?(text)
    File.write(path, content)
  end

  def each_cookie(uri)
    @cookies.each do |cookie|
      yield cookie
    end
  end

  def to_hash
    pairs = @cookies.map { |c| [c.name, c.value] }
    pairs.to_h
  end

  def fetch(key)
    store.read(key)
  rescue KeyError
    nil
  end

  def run(args)
    case args.first
    when "x" then go
    end
  end
end
'''


def test_a_ruby_method_whose_body_runs_straight_through_is_an_accessor() -> None:
    # thor's `create_link` builds its config and hands it to `CreateLink.new`, a constructor stores its arguments:
    # a body with no condition, loop or block does no deciding of its own, the method it hands on to does. A modifier
    # `unless`, a block (`do`, `{ |c|`, an iterator), a `rescue` or a `case` is a decision; `do_GET` is a name
    chunks = Chunker(max_tokens=256).chunk("lib/actions.rb", RUBY_STRAIGHT, "ruby")
    functions = {c.symbol for c in chunks if c.kind == "function"}
    flagged = {c.symbol for c in chunks if c.kind == "function" and accessor(c)}
    assert flagged == {"Actions.initialize", "Actions.create_link", "Actions.do_GET"}, (flagged, functions)
    assert {"Actions.insert", "Actions.each_cookie", "Actions.to_hash", "Actions.fetch", "Actions.run"} <= functions


RUBY_HOLLOW = '''require "faraday/error"

module Faraday
  # Raised by the adapter when the TLS handshake fails.
  class SSLError < Error
  end

  # Basic authentication through a proxy: the challenge comes from the proxy.
  class ProxyBasicAuth < BasicAuth
    include ProxyAuthenticator
    attr_reader :realm
    AUTH_HEADER = "Proxy-Authorization"
  end

  class Retry < Middleware
    DEFAULT_RETRIES = 2

    def initialize(app, options = nil)
      super(app)
      @options = options || {}
      @errors = @options.fetch(:exceptions) { [Faraday::TimeoutError] }
    end
  end

  module Concern
    included do
      before_action :authenticate
    end
  end

  Adapter = Struct.new(:name, :klass)
end
'''


def test_a_ruby_class_that_holds_no_code_is_an_accessor() -> None:
    # a namespace's header, an error class that only names its place (`class SSLError < Error; end`), a class that
    # mixes a module in and declares an attribute and a constant, a split class's header: each says what the class is
    # called, and the code a question describes is in its methods, superclass or modules. A block (`included do`) is
    # code, and so is a class kept whole with its methods
    chunks = Chunker(max_tokens=48).chunk("lib/faraday/errors.rb", RUBY_HOLLOW, "ruby")
    classes = {c.symbol for c in chunks if c.kind == "class"}
    flagged = {c.symbol for c in chunks if c.kind == "class" and accessor(c)}
    assert flagged == {"Faraday", "Faraday.SSLError", "Faraday.ProxyBasicAuth", "Faraday.Retry"}, (flagged, classes)
    assert "Faraday.Concern" in classes
    whole = Chunker(max_tokens=512).chunk("lib/faraday/errors.rb", RUBY_HOLLOW, "ruby")
    assert not any(accessor(c) for c in whole if c.kind == "class")


def test_a_csharp_directive_between_a_type_name_and_its_body_does_not_name_the_type() -> None:
    # newtonsoft's JsonWriter.Async.cs: the grammar read `HAVE_ASYNC_DISPOSABLE` as the type's name, and every member
    # as `Newtonsoft.Json.HAVE_ASYNC_DISPOSABLE.X`; a directive in a doc comment's neighbourhood stays as it was
    text = ("namespace Newtonsoft.Json\n{\n    public abstract partial class JsonWriter\n#if HAVE_ASYNC_DISPOSABLE\n"
            "        : IAsyncDisposable\n#endif\n    {\n        /// <summary>The class name is checked.</summary>\n"
            "#pragma warning disable SYSLIB0051\n        public void Flush(int depth)\n        {\n"
            "            depth++;\n        }\n#pragma warning restore SYSLIB0051\n    }\n}\n")
    chunks = Chunker(max_tokens=64).chunk("JsonWriter.Async.cs", text, "csharp")
    assert {c.symbol for c in chunks if c.kind != "module"} == {"Newtonsoft.Json.JsonWriter",
                                                               "Newtonsoft.Json.JsonWriter.Flush"}
    flush = next(c for c in chunks if c.symbol.endswith(".Flush"))
    assert flush.content.lstrip().startswith("/// <summary>The class name") and "#pragma warning disable" in flush.content
    assert "#if HAVE_ASYNC_DISPOSABLE" in "\n".join(c.content for c in chunks)  # the file's own text


TS_TYPE_ALIASES = '''import type { Action } from './actions'

/**
 * A reducer takes the state so far and an action, and returns the next state.
 * It must be pure: no side effects, the same answer for the same arguments.
 */
export type Reducer<S = any, A extends Action = Action> = (state: S | undefined, action: A) => S

type Listener = () => void

export interface Unsubscribe {
  (): void
}
'''


def test_typescript_type_aliases_are_named_definitions() -> None:
    # redux's src/types/reducers.ts: `export type Reducer<...> = ...` was a module chunk, named nothing
    chunks = Chunker(512).chunk("src/types/reducers.ts", TS_TYPE_ALIASES, "typescript")
    spans = {c.symbol: (c.kind, c.start_line, c.end_line) for c in chunks if c.symbol}
    assert spans["Reducer"] == ("class", 3, 7)  # with its JSDoc
    assert spans["Listener"] == ("class", 9, 9)  # a run of one alias: nothing to merge with
    assert spans["Unsubscribe"] == ("class", 11, 13)
    # zod's util.ts: a run of one-line aliases is one chunk naming each, not one chunk per line
    run = "".join(f"export type Alias{k} = {{ field{k}: number }};\n" for k in range(4))
    merged = Chunker(512).chunk("src/util.ts", run + "\nexport interface Shape {\n  size: number\n}\n", "typescript")
    assert [(c.symbol, c.start_line, c.end_line) for c in merged] == [("Alias0", 1, 4), ("Shape", 6, 8)]
    assert merged[0].symbols == [f"Alias{k}" for k in range(4)] and merged[0].kind == "class"
    fields = "".join(f"  field{k}: string // what field {k} holds, long enough to fill the chunk\n" for k in range(12))
    long = Chunker(max_tokens=64).chunk("options.ts", f"export type Options = {{\n{fields}}}\n", "typescript")
    assert long[0].symbol == "Options" and long[0].kind == "class" and long[0].start_line == 1
    assert len(long) > 1 and all(c.symbol == "Options" and c.kind == "part" for c in long[1:])


def test_a_typescript_file_of_types_alone_is_read_as_documentation() -> None:
    # redux's src/types/store.ts: interfaces whose JSDoc describes `subscribe` ranked above createStore.ts, which runs it
    types = ("import type { Action } from './actions'\nimport { Reducer } from './reducers'\n\n"
             "/** A function to remove a listener added by subscribe. */\nexport type Unsubscribe = () => void\n\n"
             "/** The store: subscribe(listener) adds a change listener, called after every dispatch. */\n"
             "export interface Store<S = any> {\n  getState(): S\n  subscribe(listener: () => void): Unsubscribe\n}\n\n"
             "declare const storeMarker: unique symbol\nexport type { Action }\n")
    chunks = Chunker().chunk("src/types/store.ts", types, "typescript")
    assert chunks and all(c.documentation for c in chunks)
    assert chunk_metadata(chunks[0], "sha")["documentation"] is True  # the search ranks it with the doc role
    assert all(c.documentation for c in Chunker().chunk("src/types/store.tsx", types, "tsx"))
    # anything that runs makes it code: a value, an enum, a value re-export, a side-effect import
    for runs in ("export const initial = {}\n", "export enum Kind { A }\n", "export * from './actions'\n",
                 "export { Store as Default }\n", "import './polyfill'\n", "function helper() {}\n"):
        assert not any(c.documentation for c in Chunker().chunk("src/store.ts", types + runs, "typescript")), runs
    assert not any(c.documentation for c in Chunker().chunk("src/imports.ts", "import { a } from './a'\n", "typescript"))
    # a `.d.ts` keeps its role from the path (generated), and JavaScript has no types to declare
    assert not any(c.documentation for c in Chunker().chunk("index.d.ts", types, "typescript"))
    assert not any(c.documentation for c in Chunker().chunk("src/store.js", "/** doc */\nexport {}\n", "javascript"))


def test_a_javascript_line_exporting_the_definition_above_joins_it() -> None:
    # axios: `export default throttle;` after the function was a one-line chunk of its own (11 of 258 chunks)
    source = ("import utils from './utils.js';\n\nfunction throttle(fn, freq) {\n  return fn;\n}\n\n"
              "export default throttle;\n")
    for language in ("javascript", "typescript"):
        chunks = Chunker().chunk("lib/helpers/throttle.js", source, language)
        assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("", 1, 1), ("throttle", 3, 7)], language
    methods = "".join(f"  method{k}(a, b) {{\n    return this.combine(a, b, {k}, 'method {k}');\n  }}\n" for k in range(3))
    klass = f"class CancelToken {{\n{methods}}}\n\nexport default CancelToken;\n"
    chunks = Chunker(max_tokens=48).chunk("lib/cancel/CancelToken.js", klass, "javascript")  # split into methods
    assert [(c.symbol, c.end_line) for c in chunks][-1] == ("CancelToken.method2", 13)  # past the class's `}`
    other = source.replace("export default throttle;", "export default debounce;")  # not the definition above
    assert [c.end_line for c in Chunker().chunk("x.js", other, "javascript")][-1] == 7
    assert [c.symbol for c in Chunker().chunk("x.js", other, "javascript")][-1] == ""


def test_a_javascript_directive_alone_joins_the_definition_below_it() -> None:
    # axios lib/helpers/bind.js: `'use strict';`, a blank line, the function: the directive was a chunk of its own
    source = "'use strict';\n\nexport default function bind(fn, thisArg) {\n  return fn.bind(thisArg);\n}\n"
    for language in ("javascript", "typescript"):
        chunks = Chunker().chunk("lib/helpers/bind.js", source, language)
        assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [("bind", "function", 1, 5)]
    with_imports = "'use strict';\n\nimport utils from './utils.js';\n\nfunction bind() {}\n"
    assert Chunker().chunk("a.js", with_imports, "javascript")[0].kind == "module"  # the file's opening lines


def test_an_unnamed_javascript_default_export_is_named_after_its_file() -> None:
    # axios lib/helpers/resolveConfig.js: `export default (config) => {...}` was a module chunk nobody could name
    imports = "import utils from '../utils.js';\n\n"
    body = "{\n  const merged = utils.merge({}, config);\n  return merged;\n}"
    for export in (f"export default (config) => {body};", f"export default async (config) => {body};",
                   f"export default function (config) {body}", f"module.exports = function (config) {body};"):
        for language in ("javascript", "typescript"):
            chunks = Chunker().chunk("lib/helpers/resolveConfig.js", imports + export + "\n", language)
            assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
                ("", "module", 1, 1), ("resolveConfig", "function", 3, 6)], (export, language)
    arrow = imports + f"export default (config) => {body};\n"
    assert Chunker().chunk("lib/platform/index.js", arrow, "javascript")[-1].symbol == "platform"  # the folder's
    assert Chunker().chunk("lib/platform/index.d.ts", arrow, "typescript")[-1].symbol == "platform"
    assert Chunker().chunk("lib/helpers/resolve-config.js", arrow, "javascript")[-1].symbol == ""  # no identifier
    named = imports + f"module.exports = function resolve(config) {body};\n"
    assert Chunker().chunk("lib/helpers/resolveConfig.js", named, "javascript")[-1].symbol == "resolve"
    for value in ("export default 42;", "module.exports = require('./lib/axios');", "exports.answer = 42;"):
        chunks = Chunker().chunk("lib/helpers/resolveConfig.js", imports + value + "\n", "javascript")
        assert [c.symbol for c in chunks] == [""], value  # not a function: the file's lines, as before


def test_a_class_or_function_assigned_to_a_property_is_a_definition() -> None:
    # hapi writes every class `exports = module.exports = internals.Request = class {...}` and its helpers
    # `exports.execute = async function (request) {...}`: all of lib/request.js was module code nobody could name
    source = ("'use strict';\n\nconst internals = {};\n\n\n"
              "exports = module.exports = internals.Request = class {\n\n    constructor(server) {\n"
              "        this.server = server;\n    }\n\n    setUrl(url) {\n        this.url = url;\n    }\n};\n\n\n"
              "internals.Request.Info = class extends Base {\n\n    toJSON() {\n        return {};\n    }\n};\n\n\n"
              "exports.execute = async function (request) {\n\n    return await request.run();\n};\n\n\n"
              "exports.run = (x) => x;\n\n\n"
              "Response.prototype.send = function () {\n    return this.end();\n};\n\n\n"
              "AxiosError.from = (error, code) => {\n    return new AxiosError(error.message, code);\n};\n\n\n"
              "const prototype = Params.prototype;\n\nprototype.append = function append(name) {\n"
              "    this.pairs.push(name);\n};\n\n\nexports.answer = 42;\n")
    for language in ("javascript", "typescript"):
        chunks = Chunker(max_tokens=40).chunk("lib/request.js", source, language)
        defined = [(c.symbol, c.kind) for c in chunks if c.kind in ("class", "function")]
        assert defined == [("Request", "class"), ("Request.constructor", "function"), ("Request.setUrl", "function"),
                           ("Info", "class"), ("execute", "function"),
                           ("run", "function")], language  # other objects' functions stay loose code
        info = next(c for c in chunks if c.symbol == "Info")
        assert info.symbols == ["Info", "Info.toJSON"]
        assert supertypes(info) == ["Base"]  # what it extends, not `Request`, which holds the base class


def test_a_declaration_whose_brace_stands_on_its_own_line_keeps_its_supertypes() -> None:
    # msgpack-java's ImmutableMapValueImpl and jackson-core's JsonFactory write `extends` and `implements` on lines
    # of their own and the brace on a fourth: their supertypes were lost, so _used_by_lead, which reads them from
    # the stored implements, lifted the interface the class implements
    source = ("package org.msgpack.value.impl;\n\npublic class ImmutableMapValueImpl\n        extends AbstractImmutableValue\n"
              "        implements ImmutableMapValue\n{\n    public int size() {\n        return 0;\n    }\n}\n")
    chunk = next(c for c in Chunker(max_tokens=200).chunk("ImmutableMapValueImpl.java", source, "java")
                 if c.kind == "class")
    assert chunk.implements == ["AbstractImmutableValue", "ImmutableMapValue"]


def test_a_java_records_components_and_an_enum_constants_arguments_are_no_supertypes() -> None:
    # jcommander's `record StringKey(String name) implements IKey` stored String as a supertype, jimfs's enum constant
    # `NFC(Pattern.CANON_EQ) {` Pattern and CANON_EQ, commons-lang's `new NumberStrategy(Calendar.YEAR) {` Calendar:
    # _used_by_lead and the implementation bonus read them as types the class extends or implements
    record = ("package com.beust.jcommander;\n\npublic record StringKey(@Nonnull String name, Other other) implements "
              "IKey {\n    public String getName() {\n        return name;\n    }\n}\n")
    chunk = next(c for c in Chunker().chunk("StringKey.java", record, "java") if c.kind == "class")
    assert chunk.implements == ["IKey"]
    body = "".join(f"      int step{i}(String text) {{\n        return text.length() * {i};\n      }}\n" for i in range(8))
    source = ("package p;\n\npublic enum PathNormalization {\n  NFC(Pattern.CANON_EQ) {\n" + body + "  },\n"
              "  CASE_FOLD(new Folding(Locale.ROOT)) {\n" + body + "  };\n\n  PathNormalization(int flags) {}\n}\n")
    chunks = Chunker(max_tokens=120).chunk("PathNormalization.java", source, "java")
    constants = [c for c in chunks if c.kind == "class" and c.symbol.startswith("PathNormalization.")]
    assert [c.symbol for c in constants] == ["PathNormalization.NFC", "PathNormalization.CASE_FOLD"]
    assert [c.implements for c in constants] == [[], []]


def test_a_kotlin_primary_constructors_parameters_are_no_supertypes() -> None:
    # javalin's `class Response(private val response: HttpResponse<String>)` stored HttpResponse and String as
    # supertypes, as a Java record's components were; the arguments passed to the superclass are none either
    source = ("package io.javalin.testtools\n\nclass Response(private val response: HttpResponse<String>, "
              "val code: (Int) -> Unit) : Base(response), Closeable {\n    fun body() = response.body()\n}\n")
    chunk = next(c for c in Chunker().chunk("Response.kt", source, "kotlin") if c.kind == "class")
    assert chunk.implements == ["Base", "Closeable"]


def test_an_exported_javascript_object_literal_is_module_code() -> None:
    # axios lib/adapters/adapters.js: `export default { getAdapter: (adapters) => {...}, adapters: knownAdapters }`;
    # the functions of an object literal are no definitions of their own, exported or not (their file's chunk holds
    # them), as a function assigned to another object's property is not (_assigned_definition)
    members = ("  getAdapter: (adapters) => {\n    return adapters.map((name) => knownAdapters[name]);\n  },\n"
               "  resolve(name) {\n    return knownAdapters[name] || null;\n  },\n"
               "  names: function () {\n    return Object.keys(knownAdapters);\n  },\n"
               "  adapters: knownAdapters\n")
    head = "import xhr from './xhr.js';\n\nconst knownAdapters = {xhr};\n\n"
    for opening, closing in (("export default {\n", "};\n"), ("module.exports = {\n", "};\n")):
        for language in ("javascript", "typescript"):
            chunks = Chunker().chunk("lib/adapters/adapters.js", head + opening + members + closing, language)
            assert [(c.symbol, c.kind) for c in chunks] == [("", "module")], language
            assert chunks[0].end_line == 16


def test_a_declaration_line_writes_the_name_as_a_whole_word() -> None:
    from code_intel.index.chunker import _writes_name

    cases = [("class Mutex {", "Mutex", True), ("class MutexLock {", "Mutex", False), ("$Mutex = 1", "Mutex", False),
             ("x$Mutex", "Mutex", False), ("Mutex2 Mutex", "Mutex", True), ("Mutex_ a", "Mutex", False),
             ("Mutex", "Mutex", True), ("(Mutex)", "Mutex", True), ("", "Mutex", False), ("a. b", "", True),
             ("ab", "", False), ("MutexMutex", "Mutex", False), ("é Mutex", "Mutex", True)]
    for line, name, expected in cases:
        pattern = re.compile(r"(?<![A-Za-z0-9_$])" + re.escape(name) + r"(?![A-Za-z0-9_$])")  # what it replaced
        assert _writes_name(line, name) is expected is bool(pattern.search(line)), (line, name)


def test_a_ruby_end_with_a_comment_naming_what_it_closes_is_no_chunk() -> None:
    # warden closes its modules with `end # Warden`: the line was a chunk of its own (found at tenth place for
    # "Warden::Proxy#authenticate!"), where a bare `end` is not
    text = ("module Warden\n  class SessionSerializer\n    def key_for(scope)\n      \"warden.user.#{scope}.key\"\n"
            "    end\n  end # SessionSerializer\nend # Warden\n")
    chunks = Chunker().chunk("lib/warden/session_serializer.rb", text, "ruby")
    assert [(c.start_line, c.kind) for c in chunks] == [(1, "class")], [(c.start_line, c.end_line, c.content) for c in chunks]


def test_a_kotlin_class_whose_constructor_opens_the_next_line_is_parsed() -> None:
    # kotlinpoet writes every Spec `public class TypeSpec` / `private constructor(` on two lines; the grammar ended
    # the class at the break and the whole file (TypeSpec.Builder, CodeBlock's `joinToCode`) was loose lines
    members = "".join(f"  public fun f{i}(x: Int): Int {{\n    val y = x + {i}\n    return y * 2\n  }}\n\n"
                      for i in range(4))
    source = ("package com.example\n\n/** A generated type. */\n@OptIn(Experimental::class)\npublic class TypeSpec\n"
              "private constructor(\n  builder: Builder,\n  private val tags: Map<String, String> = builder.tags,\n) : "
              "Taggable,\n  Documentable {\n" + members +
              "  public class Builder internal constructor(internal val name: String) {\n" + members + "  }\n}\n\n"
              "public fun Collection<TypeSpec>.joinToCode(separator: String = \", \"): String =\n"
              "  joinToString(separator)\n")
    chunks = Chunker(max_tokens=60).chunk("TypeSpec.kt", source, "kotlin")
    named = {c.symbol: (c.kind, c.start_line) for c in chunks if c.kind in ("class", "function")}
    assert named["TypeSpec"][0] == "class" and named["TypeSpec.Builder"][0] == "class"
    assert named["TypeSpec.f0"] == ("function", 11) and "TypeSpec.Builder.f3" in named
    assert named["Collection.joinToCode"][0] == "function"
    assert max(c.end_line for c in chunks) == source.count("\n")  # every row where it was



def test_a_python_function_with_work_of_its_own_that_returns_no_value_is_valueless() -> None:
    # asyncio's Future: `set_result` stores and schedules (its effect is the point), `result` returns, `__iter__`
    # yields; a body of one statement (an abstract method's `pass`) says nothing, `return None` is no value, and a
    # signature over two lines is no statement of the body; another language's function is never flagged
    text = ("class Future:\n    def set_result(self, result):\n        self._result = result\n"
            "        self._schedule_callbacks()\n\n    def result(self):\n        if self._state != 1:\n"
            "            raise Error()\n        return self._result\n\n    def cancelled(self):\n        pass\n\n"
            "    def __iter__(self):\n        if not self.done():\n            self._blocking = True\n"
            "            yield self\n\n    def reset(self):\n        self.x = 1\n        return None\n\n"
            "    def bind(self,\n             loop):  # a loop\n        self._loop = loop\n        self.g = lambda: 2\n\n"
            "    def abstract(self,\n                 name):\n        raise NotImplementedError\n\n"
            "    def cancel(self):\n        if self.done():\n            return\n        self._state = 2\n\n"
            "    def exception(self):\n        self._check()\n        return(self._exception)\n")
    chunks = Chunker(max_tokens=40).chunk("futures.py", text, "python")
    flagged = {c.symbol for c in chunks if valueless(c)}
    functions = {c.symbol for c in chunks if c.kind == "function"}
    # a bare `return` is an early exit, not a value (`cancel`); `return(...)` gives one back (`exception`)
    assert flagged == {"Future.set_result", "Future.reset", "Future.bind", "Future.cancel"}, (flagged, functions)
    assert {"Future.result", "Future.cancelled", "Future.__iter__", "Future.abstract",
            "Future.exception"} <= functions - flagged
    assert all(chunk_metadata(c, "sha").get("valueless") is (True if c.symbol in flagged else None) for c in chunks)
    go = "package f\n\nfunc (f *Future) SetResult(r int) {\n\tf.result = r\n\tf.schedule()\n}\n"
    assert not any(valueless(c) for c in Chunker(max_tokens=16).chunk("future.go", go, "go"))


def test_the_index_stores_what_a_functions_code_writes_for_the_subject_rule() -> None:
    # rank_code's `subject` reads Scored.body_words; the index stores them with each function chunk (sync.chunk_metadata,
    # read back by service._scored), so a search reads no file for them: the calls and string literals, less the
    # function's own name and its docstring's words; a class chunk stores none
    text = ('class Middleware:\n    def parse_request_body(self, request):\n        """Read the body."""\n'
            '        if request.method == "GET":\n            raise BadRequest("body sent with GET")\n'
            '        return decode_payload(request.stream)\n')
    chunks = {c.symbol: c for c in Chunker(max_tokens=60).chunk("middleware.py", text, "python")}
    stored = chunk_metadata(chunks["Middleware.parse_request_body"], "sha")["body_words"].split(",")
    assert {"bad", "sent", "decod", "payload"} <= set(stored) and not {"pars", "read"} & set(stored), stored
    assert all("body_words" not in chunk_metadata(c, "sha") for c in chunks.values() if c.kind != "function")


def test_the_body_words_of_a_script_without_a_suffix_read_its_own_language() -> None:
    # an extension-less script takes its language from its `#!` line (chunk.language); the path names none, so
    # its `#` comments are comments only when the body words read the chunk's language: "don't" opened a string
    # literal and a comment's `retry(` was a call
    text = ("#!/usr/bin/env python\n\ndef fetch(url):\n    # don't retry(here): the caller does\n"
            "    return download(url, 'json payload')\n")
    chunks = {c.symbol: c for c in Chunker(max_tokens=60).chunk("bin/fetch", text, script_language("bin/fetch", text))}
    stored = set(chunk_metadata(chunks["fetch"], "sha")["body_words"].split(","))
    assert {"download", "json", "payload"} <= stored and not {"retry", "caller"} & stored, stored


def test_a_docstring_is_no_statement_of_a_function_that_returns_no_value() -> None:
    # real code keeps its docstrings: an abstract method documented "Return ..." that only raises says nothing either
    # way, whether its docstring is one line or several; a documented setter with work of its own is still flagged
    text = ('class Base:\n    def result(self):\n        """Return the result."""\n        raise NotImplementedError\n\n'
            '    def exception(self):\n        """Return the exception\n\n        set on this future.\n        """\n'
            '        raise NotImplementedError\n\n'
            '    def set_result(self, result):\n        """Store the result."""\n        self._result = result\n'
            '        self._schedule()\n')
    flagged = {c.symbol for c in Chunker(max_tokens=40).chunk("base.py", text, "python") if valueless(c)}
    assert flagged == {"Base.set_result"}, flagged
