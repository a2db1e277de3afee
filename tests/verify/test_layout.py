"""A test body's shape: equal across a formatter's layout, different when what it checks changes."""

from __future__ import annotations

import pytest

from code_intel.verify.layout import shape


@pytest.mark.parametrize("before, after", [
    (["x = f(1,2)"], ["x = f(1, 2)"]),  # whitespace
    (["assert a == 'b'"], ['assert a == "b"']),  # either quote
    (["call(a, b);"], ["call(a, b)"]),  # a semicolon ending a line
    (["f(a, b)"], ["f(", "a,", "b,", ")"]),  # a call split over lines, with a trailing comma
    (["x = a + b"], ["x = (", "a + b", ")"]),  # parentheses laying out an expression
    (["assert (1,)"], ["assert (", "1,", ")"]),  # a one-item tuple keeps its comma either way
    (["emitter.on('a', e => seen.push(e));"], ["emitter.on('a', (e) => seen.push(e));"]),  # prettier's arrowParens
    (["list.forEach(x -> check(x));"], ["list.forEach((x) -> check(x));"]),  # a Java lambda
    (["const e = make(); let got; e.on('a', (x) => { got = x; });"],  # statements joined on one line, or split
     ["const e = make();", "let got;", 'e.on("a", x => {', "got = x;", "});"]),
])
def test_layout_is_not_a_change(before: list[str], after: list[str]) -> None:
    assert shape(before) == shape(after)


@pytest.mark.parametrize("before, after", [
    (["assert f() == 3"], ["assert f() == 4"]),
    (["assert a == 'x y'"], ["assert a == 'xy'"]),  # whitespace inside a string is kept
    (["assert (1,)"], ["assert 1"]),  # a tuple is not its item
    (["assert!(", "ok(1)", ");"], ["assert!ok(1)"]),  # a macro's parentheses are not layout
    (["g = f(", "a", ")"], ["g = fa"]),  # nor a call's
    (["fn f(x) -> u8 {"], ["fn fx -> u8 {"]),  # nor a signature's before `->`
    (["foo; bar()"], ["foobar()"]),  # two words stay two
    (["return x"], ["returnx"]),
])
def test_what_a_test_checks_is_a_change(before: list[str], after: list[str]) -> None:
    assert shape(before) != shape(after)
