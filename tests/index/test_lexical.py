"""Identifier splitting, BM25 ranking and fusion."""

from __future__ import annotations

from code_intel.index.bm25 import LexicalIndex, top
from code_intel.index.chunker import Chunker
from code_intel.index.retrieval import DENSE_WEIGHT, fuse
from code_intel.index.text import (
    body_words,
    embedding_text,
    indexed_texts,
    lexical_text,
    lexical_tokens,
    member_names,
    spelled_out,
    split_identifier,
    stem,
)


def test_split_identifier_handles_camel_snake_and_acronyms() -> None:
    assert split_identifier("parseHTTPResponse") == ["parse", "http", "response"]
    assert split_identifier("max_file_bytes") == ["max", "file", "bytes"]
    assert split_identifier("UserStore2") == ["user", "store", "2"]


def test_spelled_out_spells_every_name_and_keeps_everything_else() -> None:
    code = "def parseHTTPResponse(max_file_bytes=2):\n    return x2y + _private  # ok\n"
    assert spelled_out(code) == ("def parse http response(max file bytes=2):\n    return x 2 y + private  # ok\n")
    assert spelled_out("") == "" and spelled_out("  (){}  ") == "  (){}  " and spelled_out("word") == "word"


def test_lexical_tokens_keep_whole_identifiers_and_drop_keywords() -> None:
    tokens = lexical_tokens("def get_user(self): return self.userName")
    assert "get" in tokens and "user" in tokens and "get_user" in tokens and "username" in tokens
    assert "self" not in tokens and "def" not in tokens and "return" not in tokens


def test_indexed_texts_are_the_embedding_text_and_the_lexical_tokens_of_each_chunk() -> None:
    source = ('"""Parses HTTP responses."""\n\n\nclass ResponseParser(BaseParser):\n'
              '    def parseHTTPResponse(self, max_file_bytes=2):\n        return x2y + _private  # naïve café\n\n'
              '    def reset(self):\n        self.the_buffer = []  # the is an English stop word\n\n\n'
              'def helper_10(a, b):\n    return "don\'t  stop" if a else b\n')
    chunks = Chunker(32).chunk("pkg/http_parser.py", source, "python")
    assert len(chunks) >= 3 and any(c.kind == "class" for c in chunks)
    index, tokens_of = LexicalIndex(), LexicalIndex()
    for number, chunk in enumerate(chunks):
        embedded, tokens = indexed_texts(chunk)
        text = lexical_text(chunk.file, chunk.symbol, chunk.content, member_names(chunk.symbol, chunk.symbols))
        assert embedded == embedding_text(chunk)
        assert tokens == lexical_tokens(text)
        index.add(str(number), text)
        tokens_of.add_tokens(str(number), tokens)
    assert index.scores("parse the http response buffer") == tokens_of.scores("parse the http response buffer") != {}


def test_bm25_ranks_matching_chunk_first_and_removal_forgets_it() -> None:
    index = LexicalIndex()
    index.add("a", "def send_email(recipient, subject): smtp.send(recipient, subject)")
    index.add("b", "def parse_invoice(pdf): return extract_totals(pdf)")
    index.add("c", "def resize_image(img, width): return img.scale(width)")
    assert top(index.scores("send an email to a recipient"), 3)[0][0] == "a"
    assert top(index.scores("invoice totals"), 3)[0][0] == "b"
    index.remove(["a"])
    assert all(cid != "a" for cid, _ in top(index.scores("email recipient"), 3))
    assert len(index) == 2
    assert top(index.scores("nothing matches zzz"), 3) == []


def test_convex_fusion_normalises_each_side_and_weighs_them() -> None:
    dense = {"x": 0.60, "y": 0.58, "z": 0.30}
    lexical = {"y": 12.0, "z": 3.0}  # x shares no word with the query: lexical 0
    fused = fuse(dense, lexical, dense_weight=0.65)
    assert [i for i, _ in fused] == ["y", "x", "z"]
    scores = dict(fused)
    assert scores["y"] == round(0.65 * (0.28 / 0.30) + 0.35 * 1.0, 4)
    assert scores["x"] == 0.65 and scores["z"] == round(0.35 * 0.25, 4)
    assert [i for i, _ in fuse(dense, lexical, dense_weight=1.0)] == ["x", "y", "z"]
    assert [i for i, _ in fuse(dense, lexical, dense_weight=0.0)][:2] == ["y", "z"]
    # a big BM25 gap counts: rank fusion would put x (dense first) on top, score fusion does not
    close = {"x": 0.50, "y": 0.49, "z": 0.10}
    assert fuse(close, {"y": 20.0, "x": 1.0}, dense_weight=0.65)[0][0] == "y"


def test_convex_fusion_edge_cases() -> None:
    assert fuse({}, {"a": 1.0}) == []
    assert fuse({"a": 0.3}, {}) == [("a", DENSE_WEIGHT)]  # no lexical side: dense share only
    only = fuse({"a": 0.3, "b": 0.5}, {})  # no query word in the index: dense order
    assert [i for i, _ in only] == ["b", "a"]
    tied = fuse({"a": 0.3, "b": 0.5}, {"a": 2.0, "b": 2.0})
    assert [i for i, _ in tied] == ["b", "a"] and all(0 <= s <= 1 for _, s in tied)


def test_stemming_and_english_stop_words_apply_to_query_and_chunk() -> None:
    assert stem("headers") == stem("header") == "header"
    assert stem("parsing") == stem("parsed") == stem("parses") == stem("parse")
    assert stem("address") == "address" and stem("status") == "status" and stem("entries") == "entry"
    tokens = lexical_tokens("Return the list of all headers which were parsed from this message")
    assert tokens == ["list", "header", "pars", "messag"]
    plain = lexical_tokens("Return the headers which were parsed", stemmed=False, english=False)
    assert "headers" in plain and "which" in plain and "parsed" in plain and "return" not in plain
    assert "get_user" in lexical_tokens("def get_user(self)")  # whole identifiers stay as written


def test_bm25_matches_inflected_forms_and_boosts_the_symbol_name() -> None:
    index = LexicalIndex()
    index.add("parser", lexical_text("mail/feed.py", "FeedParser.parse_headers", "def parse_headers(self, lines):\n"
                                     "    for line in lines:\n        self.items.append(line.split(':'))"))
    index.add("mention", lexical_text("mail/util.py", "log_lines",
                                      "def log_lines(lines):\n    # headers are parsed elsewhere\n    print(lines)"))
    ranked = top(index.scores("Parse the header lines of a message."), 5)
    assert [cid for cid, _ in ranked][:1] == ["parser"]
    scores = index.scores("parsing headers")
    assert set(scores) == {"parser", "mention"} and scores["parser"] > scores["mention"]
    assert index.scores("the which were") == {}


def test_bm25_removals_are_compacted_and_a_re_added_chunk_counts_once() -> None:
    index = LexicalIndex()
    for n in range(200):
        index.add(f"c{n}", f"def handler_{n}(request): return parse_body(request, {n}) alpha{n % 7}")
    index.remove([f"c{n}" for n in range(120)])  # more than a quarter gone: the postings are rebuilt
    assert len(index) == 80 and all(int(c[1:]) >= 120 for c, _ in top(index.scores("parse body alpha3"), 10))
    index.add("c150", "totally different words zebra")  # replaces c150's old text
    assert top(index.scores("zebra"), 3)[0][0] == "c150" and len(index) == 80
    assert "c150" not in {c for c, _ in top(index.scores("alpha3 handler"), 80)}


def test_body_words_are_what_a_functions_calls_and_strings_write() -> None:
    code = '''def parse_request_body(request):
    """Read the payload of the request."""
    # some clients send one
    if request.method == "GET":
        raise ValueError("content not allowed")
    return decode(request.raw)'''
    written = body_words(code, "python", "Client.parse_request_body")
    assert set(lexical_tokens("GET content allowed ValueError decode")) <= written
    assert not written & set(lexical_tokens("payload some clients send parse request body client"))
    # `//` and `/* */` elsewhere: a comment's words are not the code's
    assert body_words('func f() {\n\t// retry later\n\tlog("retry failed")\n}', "go", "f") == frozenset(
        lexical_tokens("log failed"))
