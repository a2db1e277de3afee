"""The pure extractors of tools/explore/markup.py: stylesheet selectors, markup attributes, DOM calls."""

from code_intel.explore.markup import MarkupName, file_markup, markup_names, script_names, stylesheet_names


def names(found: list[MarkupName]) -> set[tuple[str, str, int]]:
    return {(n.kind, n.name, n.line) for n in found}


def test_css_selectors_with_lines_skip_comments_declarations_and_at_rules() -> None:
    css = (
        "/* .commented { } */\n"  # 1
        ".btn, .btn-primary:hover > #header {\n"  # 2
        "  color: #fff; background: url(a.b/c.png);\n"  # 3
        "  width: 1.5em;\n"  # 4
        "}\n"  # 5
        "@media (max-width: 600px) {\n"  # 6
        "  .nav li.active a[href$=\".pdf\"] { margin: 0 }\n"  # 7
        "}\n"  # 8
        ":not(.hidden)::after { content: \".fake\" }\n"  # 9
    )
    assert names(stylesheet_names(css)) == {
        ("class", "btn", 2), ("class", "btn-primary", 2), ("id", "header", 2),
        ("class", "nav", 7), ("class", "active", 7), ("class", "hidden", 9),
    }


def test_scss_nesting_interpolation_and_line_comments() -> None:
    scss = (
        "// .old { }\n"  # 1
        ".card {\n"  # 2
        "  padding: 0;\n"  # 3
        "  &.is-open { display: block; }\n"  # 4
        "  .card__title #{$sel} { font-weight: bold; }\n"  # 5
        "  background: url(http://x.y/z.png);\n"  # 6
        "}\n"
    )
    assert names(stylesheet_names(scss, dialect="scss")) == {
        ("class", "card", 2), ("class", "is-open", 4), ("class", "card__title", 5),
    }


def test_escaped_class_names_are_unescaped() -> None:
    assert names(stylesheet_names(".md\\:flex { display: flex }")) == {("class", "md:flex", 1)}


def test_indented_sass_reads_selector_lines_only() -> None:
    sass = ".menu\n  color: red\n  .item:hover\n    margin: 0\n$x: 1\n"
    assert names(stylesheet_names(sass, dialect="sass")) == {("class", "menu", 1), ("class", "item", 3)}


def test_html_attributes_lists_and_comments() -> None:
    html = (
        "<div class=\"btn btn-primary\" id=\"header\">\n"  # 1
        "<!-- <p class=\"ghost\"> -->\n"  # 2
        "<span data-id=\"nope\" class = 'lead {{ extra }}'>\n"  # 3
        "<p class=\"\n  multi\n\">\n"  # 4-6
    )
    assert names(markup_names(html)) == {
        ("class", "btn", 1), ("class", "btn-primary", 1), ("id", "header", 1),
        ("class", "lead", 3), ("class", "multi", 4),
    }


def test_jsx_class_name_forms() -> None:
    jsx = (
        "export const A = () => (\n"  # 1
        "  <div className=\"card\" id=\"main\">\n"  # 2
        "    <b className={clsx('title', { active: on })} />\n"  # 3
        "    <i className={styles.icon} />\n"  # 4
        "    <u className={`badge ${kind}`} />\n"  # 5
        "  </div>);\n"
        "const id = \"not-an-attribute\";\n"  # 7
    )
    assert names(markup_names(jsx, tight=True)) == {
        ("class", "card", 2), ("id", "main", 2), ("class", "title", 3), ("class", "active", 3),
        ("class", "icon", 4), ("class", "badge", 5),
    }


def test_vue_bindings_and_svelte_directive() -> None:
    vue = "<div :class=\"{ active: isActive, 'text-danger': bad }\" v-bind:class=\"['wide']\"></div>\n<b class:shown={x}>"
    assert names(markup_names(vue)) == {
        ("class", "active", 1), ("class", "text-danger", 1), ("class", "wide", 1), ("class", "shown", 2),
    }


def test_dom_and_jquery_calls() -> None:
    js = (
        "const h = document.getElementById('header');\n"  # 1
        "document.querySelectorAll('.nav .item > a');\n"  # 2
        "h.classList.add('open', \"visible\");\n"  # 3
        "$('#modal').addClass('shown').find('.close');\n"  # 4
        "users.find('bob'); config.get('db.host');\n"  # 5
        "el.className = 'card big'; el.id = 'x1';\n"  # 6
        "el.setAttribute('class', 'late');\n"  # 7
        "document.getElementsByClassName('tab pane');\n"  # 8
    )
    assert names(script_names(js)) == {
        ("id", "header", 1), ("class", "nav", 2), ("class", "item", 2), ("class", "open", 3),
        ("class", "visible", 3), ("id", "modal", 4), ("class", "shown", 4), ("class", "close", 4),
        ("class", "card", 6), ("class", "big", 6), ("id", "x1", 6), ("class", "late", 7),
        ("class", "tab", 8), ("class", "pane", 8),
    }


def test_file_markup_reads_embedded_style_and_script_blocks_with_true_lines() -> None:
    vue = (
        "<template>\n"  # 1
        "  <div class=\"panel\"></div>\n"  # 2
        "</template>\n"  # 3
        "<script>\n"  # 4
        "document.querySelector('#root');\n"  # 5
        "</script>\n"  # 6
        "<style lang=\"scss\">\n"  # 7
        ".panel { // note\n"  # 8
        "  .inner { }\n"  # 9
        "}\n"
        "</style>\n"
    )
    markup = file_markup("src/App.vue", vue)
    assert names(markup.used) == {("class", "panel", 2)}
    assert names(markup.selected) == {("id", "root", 5)}
    assert names(markup.defined) == {("class", "panel", 8), ("class", "inner", 9)}


def test_file_markup_dispatches_on_extension() -> None:
    assert names(file_markup("a.less", ".x { }").defined) == {("class", "x", 1)}
    ts = file_markup("a.ts", "el.innerHTML = `<p class=\"note\">`; document.getElementById('t');")
    assert names(ts.used) == {("class", "note", 1)}
    assert names(ts.selected) == {("id", "t", 1)}
    assert file_markup("a.py", "x = 'class=\"y\"'").all_names() == set()
