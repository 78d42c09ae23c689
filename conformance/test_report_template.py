"""report.html's template (app/report_template.py): the Python Jinja makes of it ships beside
it (templates/report.html.j2.py.txt) and is used only where it was made from the template as it
is now, by the installed Jinja; the page it renders is the page the template compiled in the
process renders. After editing the template, rewrite the shipped code and review the diff:

    PTXCONF_UPDATE_GOLDEN=1 python -m pytest conformance/test_report_template.py
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest

from ptxconf.app import report_html
from ptxconf.app import report_template as T
from ptxconf.app.report_html import html_report
from ptxconf.core.results import Result, Status

UPDATE_ENV = "PTXCONF_UPDATE_GOLDEN"


def _source() -> str:
    return (T.TEMPLATES / T.NAME).read_text(encoding="utf-8")


def test_the_shipped_code_is_made_from_the_template_as_it_is() -> None:
    env = T.environment()
    if os.environ.get(UPDATE_ENV):
        T.PRECOMPILED.write_text(T.generate(env, _source()), encoding="utf-8")
    first, _, code = T.PRECOMPILED.read_text(encoding="utf-8").partition("\n")
    template_sha = first.rpartition("template sha256 ")[2].rstrip(")")
    assert template_sha == hashlib.sha256(_source().encode()).hexdigest(), (
        f"report.html.j2 was edited after {T.PRECOMPILED.name} was made: run with {UPDATE_ENV}=1")
    if f"(Jinja {jinja2.__version__}," in first:  # made by this Jinja: exactly what it makes now
        assert first == T.header(_source())
        assert code == env.compile(_source(), T.NAME, None, raw=True)


def test_the_shipped_code_is_loaded_without_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    if T.PRECOMPILED.read_text(encoding="utf-8").partition("\n")[0] != T.header(_source()):
        pytest.skip(f"{T.PRECOMPILED.name} was made by another Jinja than {jinja2.__version__} "
                    "(test_a_template_edited_after_its_code_was_made covers compiling)")

    def no_compile(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the template was compiled")

    monkeypatch.setattr(jinja2.Environment, "compile", no_compile)
    assert T.load().render is not None


def test_a_template_edited_after_its_code_was_made_is_compiled(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped code is stale for an edited template: the edit shows on the page."""
    folder = tmp_path / "templates"
    shutil.copytree(T.TEMPLATES, folder)
    edited = _source().replace("</body>", "<!-- an edit -->\n</body>")
    assert edited != _source()
    (folder / T.NAME).write_text(edited, encoding="utf-8")
    monkeypatch.setattr(T, "TEMPLATES", folder)
    monkeypatch.setattr(T, "PRECOMPILED", folder / T.PRECOMPILED.name)
    report_html.page_template.cache_clear()
    try:
        page = html_report(_results(), {})
    finally:
        report_html.page_template.cache_clear()
    assert "<!-- an edit -->" in page


def _results() -> list[Result]:
    return [Result("spec.row[a/b:x]", "spec.row", Status.PASS, "ok", {"n": 1}, 0.01, None, "ok",
                   "spec-lint"),
            Result("proof.layout_injective[a/b:y]", "proof.layout_injective", Status.DISCREPANCY,
                   "two coordinates at one address", {"counterexample": {"m": 1}}, 0.02, None,
                   "refuted", "proofs"),
            Result("gpu-wmma[*]", "gpu-wmma", Status.SKIP, "not asked for (--gpu off)", {}, 0.0,
                   None, "dependency_missing", "gpu-wmma")]


def test_the_page_from_the_shipped_code_is_the_page_of_the_compiled_template(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pages: list[tuple[str, str]] = []

    class Both:
        def render(self, **context: Any) -> str:
            shipped = T.load().render(**context)
            compiled = T.environment().get_template(T.NAME).render(**context)
            pages.append((shipped, compiled))
            return shipped

    monkeypatch.setattr(report_html, "page_template", Both)
    html_report(_results(), {"strict": False})
    ((shipped, compiled),) = pages
    assert shipped == compiled
