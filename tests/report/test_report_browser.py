"""The report page in a real browser: headless Chromium (Debian's `chromium`, which setup.sh installs) loads it with
no console error and no request but the page itself, and draws something (the screenshot is not blank)."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.report.output import write_report
from tests.workflow.conftest import QUERY

from .browser import find_chromium, open_page, png_colours
from .conftest import parse_page

pytestmark = pytest.mark.slow  # starts a browser

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (setup.sh installs Debian's `chromium` with apt-get; run "
    "`apt-get install -y chromium` as root where setup.sh could not)")
URL_ATTRIBUTES = frozenset({"src", "href", "action", "formaction", "srcset", "poster", "data", "background", "ping",
                            "manifest", "xlink:href"})


def test_the_page_names_nothing_to_fetch(session, repo):
    driver = session(checks=False)
    driver.run(driver.start(query=QUERY + " (see https://example.com/spec and <img src=//evil.example/x.png>)"))
    page = parse_page(write_report(repo).read_text(encoding="utf-8"))
    assert "https://example.com/spec" in page.by_id("summary").text  # the request is shown, as text
    links = [(n.tag, k, v) for n in page.walk() for k, v in n.attrs.items() if k in URL_ATTRIBUTES]
    assert links and all(v.startswith("#") for _, _, v in links), links  # only links inside the page
    assert not page.find_all("img") and not page.find_all("script") and not page.find_all("link")
    style = "".join(n.text for n in page.find_all("style"))
    assert "url(" not in style and "@import" not in style
    [policy] = [n for n in page.find_all("meta") if n.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in policy.attrs["content"]


def test_the_checker_sees_requests_and_console_errors(tmp_path: Path):
    """The browser check can fail: a page that fetches and logs an error is caught."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><script>console.error("boom")</script>'
                   '<img src="http://192.0.2.1/x.png"><p>x</p></body></html>', encoding="utf-8")
    visit = open_page(CHROMIUM, bad, width=400, height=300, scale=0.5)
    assert any("192.0.2.1" in url for url in visit.requests)
    assert any("boom" in error for error in visit.console_errors)


@needs_chromium
def test_the_page_renders_in_chromium_without_errors_or_requests(session, repo, tmp_path: Path):
    driver = session()
    driver.quality_issues = [["subtract_task_1 has no docstring"]]
    final = driver.run(driver.start())
    assert final["phase"] == "SESSION_COMPLETE"
    page = write_report(repo, output=str(tmp_path / "report.html"))
    assert CHROMIUM is not None
    visit = open_page(CHROMIUM, page, width=1000, height=1400, scale=0.5)
    assert visit.requests == [page.resolve().as_uri()]  # the page itself, nothing else
    assert visit.console_errors == []
    assert png_colours(visit.screenshot) > 8  # text, badges and the timeline bar: not a blank page
