"""Tests of reports.figures and reports.html: figure content, self-containment, escaping of hostile data."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from fedrates.reports import figures, html

HOSTILE = "<script>alert(1)</script>"
QUOTES = "\"&'"
X = [10, 20, 40, 80]
SEEDS = [0, 1, 2]


def _records(claim: str = "bao.thm2.1/rate-T", bound: float | None = 10.0) -> pd.DataFrame:
    """Three seeds × four sweep points, two recorded rounds per run (the last one is at round = iterations)."""
    rows = []
    for seed in SEEDS:
        for point, t in enumerate(X):
            for rnd in (1, t):
                rows.append(
                    {
                        "claim": claim,
                        "point": point,
                        "seed": seed,
                        "round": rnd,
                        "iterations": t,
                        "metric": "objective_gap",
                        # early rounds are far larger: they must not enter the plotted value at this point
                        "value": 3.0 * (1 + seed) / t if rnd == t else 1e3,
                        "bound": math.nan if bound is None else bound / t,
                    }
                )
    extra = dict(rows[0], metric="distance_to_optimum", value=5.0)  # another metric, not plotted
    return pd.DataFrame([*rows, extra])


def _verdict(claim: str = "bao.thm2.1/rate-T", **over: object) -> dict:
    verdict = {
        "claim": claim,
        "title": "rate in T",
        "theorem": "bao.thm2.1",
        "statement": r"\mathbb{E} f(\hat w_T) - f^\star \le \frac{C}{T}",
        "algorithm": "fedda",
        "problem": "lasso",
        "verdict": "pass",
        "measured": -1.02,
        "predicted": -1.0,
        "tolerance": 0.1,
        "regime": "noise-dominated",
        "conditions": [
            {"condition": "a >= 4 L / mu", "holds": True, "value": "a = 40"},
            {"condition": "T >= a", "holds": False, "value": "T = 10"},
            {"condition": "sigma known", "holds": None, "value": ""},
        ],
        "constants": {"L": 1.5, "mu": 0.25},
        "seeds": SEEDS,
        "message": "slope within tolerance",
        "x": "iterations",
        "metric": "objective_gap",
        "fit": {"slope": -1.02, "intercept": 1.1, "lo": -1.08, "hi": -0.97},
    }
    verdict.update(over)
    return verdict


# ---------------------------------------------------------------------------------------------------- figures


@pytest.mark.parametrize(("over", "note"), [({"x": "clients"}, "'clients' is not recorded"),
                                             ({"metric": "no_such_metric"}, "no 'no_such_metric'")])
def test_claim_figure_says_what_it_shows_when_the_declared_data_is_missing(over: dict, note: str) -> None:
    from fedrates.verify.plotdata import plot_spec

    spec = plot_spec(_records(), _verdict(**over))
    assert note in spec["note"]
    ax = figures.claim_figure(_records(), _verdict(**over), spec).axes[0]
    assert any(note in t.get_text() for t in ax.texts)


def test_claim_figure_rejects_records_without_a_finite_value() -> None:
    records = _records().assign(value=float("nan"))
    with pytest.raises(ValueError, match="no finite values"):
        figures.claim_figure(records, _verdict())


def test_to_svg_is_inline_and_offline() -> None:
    fig = figures.claim_figure(_records(), _verdict(claim=HOSTILE + "$x$ --> " + QUOTES))
    svg = figures.to_svg(fig, id_prefix="c7-")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "http" not in svg and "<?xml" not in svg and "<!DOCTYPE" not in svg
    assert HOSTILE not in svg and "<script" not in svg
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert ids and all(i.startswith("c7-") for i in ids)
    assert all(ref.startswith("c7-") for ref in re.findall(r'href="#([^"]+)"', svg))
    assert not fig.axes  # closed (cleared) after rendering


def test_to_svg_closes_pyplot_figure() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    fig.add_subplot().plot([1, 2], [1, 2])
    assert isinstance(fig, Figure)
    figures.to_svg(fig)
    assert not plt.fignum_exists(fig.number)


# ---------------------------------------------------------------------------------------------------- HTML


def _render(tmp_path: Path, verdicts: list[dict], records: pd.DataFrame | None = None, **kw: object) -> str:
    path = html.render_html(
        _records() if records is None else records,
        verdicts,
        kw.get("provenance", {"fedrates": "0.1.0", "numpy": "2.0", "seeds": SEEDS}),
        kw.get("errata", []),
        tmp_path / "out" / "report.html",
        title=str(kw.get("title", "fedrates verification report")),
    )
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]  # no temporary file left behind
    return path.read_text(encoding="utf-8")


def test_report_lists_every_claim_verdict_and_counts(tmp_path: Path) -> None:
    records = pd.concat([_records("a/one"), _records("b/two"), _records("c/three")])
    verdicts = [
        _verdict("a/one"),
        _verdict("b/two", verdict="fail"),
        _verdict("c/three", verdict="conditions-not-met"),
        _verdict("d/four", verdict="inconclusive"),
        _verdict("e/five", verdict="pass"),
    ]
    text = _render(tmp_path, verdicts, records)
    for v in verdicts:
        assert v["claim"] in text
    assert 'class="verdict v-pass">pass: 2<' in text
    assert 'class="verdict v-fail">fail: 1<' in text
    assert 'class="verdict v-conditions-not-met">conditions-not-met: 1<' in text
    assert 'class="verdict v-inconclusive">inconclusive: 1<' in text
    assert text.count("<svg") == 3  # claims without records get a note instead of a figure
    assert "No records were stored for this claim." in text
    assert "\\mathbb{E} f(\\hat w_T) - f^\\star \\le \\frac{C}{T}" in text  # LaTeX source shown verbatim
    assert "fitted slope \u22121.02 [\u22121.08, \u22120.97]" in text
    assert text.count(">✓<") == 5 and text.count(">✗<") == 5 and text.count(">?<") == 5


def test_report_is_self_contained(tmp_path: Path) -> None:
    text = _render(tmp_path, [_verdict()])
    assert "<script" not in text.lower()
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"""\s(src|href)=(?!["']?#)""", text)  # only in-page anchors
    assert "@import" not in text and "url(http" not in text


def test_report_urls_in_data_stay_text(tmp_path: Path) -> None:
    text = _render(tmp_path, [_verdict(message="see https://example.org/x")])
    assert "see https://example.org/x" in text
    assert not re.search(r"""(src|href)=["']?https?:""", text)


def test_report_escapes_hostile_strings(tmp_path: Path) -> None:
    bad = HOSTILE + QUOTES
    verdict = _verdict(
        claim="x/" + bad,
        title=bad,
        statement=bad,
        message=bad,
        regime=bad,
        conditions=[{"condition": bad, "holds": True, "value": bad}],
        constants={bad: bad},
        verdict=bad,
    )
    records = _records(claim="x/" + bad)
    text = _render(
        tmp_path,
        [verdict],
        records,
        provenance={bad: bad},
        errata=[{"theorem": bad, "text": bad, "resolution": bad}],
        title=bad,
    )
    assert HOSTILE not in text and "<script" not in text
    assert QUOTES not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;&#39;" in text
    assert 'class="verdict v-unknown"' in text  # an unknown verdict value gets the neutral style


def test_errata_section_is_prominent_and_optional(tmp_path: Path) -> None:
    errata = [{"theorem": "bao.thm3.1", "text": "constant 2 is missing", "resolution": "use 2C"}]
    text = _render(tmp_path, [_verdict(), _verdict("z/err", verdict="erratum")], errata=errata)
    section = text[text.index('<section class="errata"') : text.index('<h2 id="claims"')]
    assert "bao.thm3.1" in section and "constant 2 is missing" in section and "use 2C" in section
    assert "z/err" in section
    assert text.index('class="errata"') < text.index('id="claims"')  # before the per-claim sections
    plain = _render(tmp_path, [_verdict()])
    assert 'class="errata"' not in plain


def test_provenance_table(tmp_path: Path) -> None:
    text = _render(tmp_path, [_verdict()], provenance={"fedrates": "0.1.0", "reference_gaps": {"lasso": 1e-12}})
    section = text[text.index('id="provenance"') :]
    assert "fedrates" in section and "0.1.0" in section and "1e-12" in section


def test_reports_import_no_upper_layer() -> None:
    code = (
        "import sys, fedrates.reports.html, fedrates.reports.figures, fedrates.reports.pdf, fedrates.reports.terminal\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[:2] in (['fedrates', 'solvers'], ['fedrates', 'bounds'],"
        " ['fedrates', 'verify']))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_constants_name_effective_quantities_and_print_exact_zeros(tmp_path: Path) -> None:
    tiny = 2.2250738585072014e-308  # how claims pass an exactly-zero τ to a theorem whose symbols are positive
    text = _render(tmp_path, [_verdict(constants={"K": 6.61, "tau": tiny, "H": 0.0, "mu": 0.25})])
    section = text[text.index("Constants of the instance"):]
    assert "K_eff = 1/Σπ_k² (effective number of clients)" in section
    assert "2.225e-308" not in text and "0 (exactly; the bound is evaluated at the limit 0⁺)" in section
    assert "<th><code>H</code></th><td>0</td>" in section
    integral = _render(tmp_path, [_verdict(constants={"K": 8.0})])
    assert "K_eff" not in integral


def test_converted_math_is_kept_in_the_figure_cache_and_checked_when_read(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html, "_MATH_MEMO", {})
    cache = tmp_path / "figures"
    first = html.render_html(_records(), [_verdict()], {}, [], tmp_path / "a" / "report.html", cache=cache)
    stored = json.loads((cache / html.MATH_CACHE).read_text(encoding="utf-8"))
    formula = html.math_from_latex(_verdict()["statement"])
    assert formula is not None and str(formula) in stored.values()  # the statement's MathML, kept
    # a later report in a fresh process converts nothing again: it reads the stored MathML
    monkeypatch.setattr(html, "_MATH_MEMO", {})
    monkeypatch.setattr(html, "_latex_mathml", lambda *a: pytest.fail("converted again"))
    monkeypatch.setattr(html, "_theorem_mathml", lambda *a: pytest.fail("converted again"))
    again = html.render_html(_records(), [_verdict()], {}, [], tmp_path / "b" / "report.html", cache=cache)
    strip = re.compile(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    assert strip.sub("", again.read_text(encoding="utf-8")) == strip.sub("", first.read_text(encoding="utf-8"))
    # an entry that is not plain MathML (a damaged or forged file) is converted again, never shown
    monkeypatch.setattr(html, "_MATH_MEMO", {})
    breakouts = ['<math><mtext>x</mtext></math><script>alert(1)</script>',
                 '<math><mi>x</mi><div onclick="alert(1)">y</div></math>', '<math><mi>x</mi></math><p>alert(1)</p>',
                 '<math><mi>x</mi><meta http-equiv="refresh" content="0;alert(1)"></math>']
    assert all(not html._plain_mathml(b) for b in breakouts) and html._plain_mathml(next(iter(stored.values())))
    forged = {key: breakouts[i % len(breakouts)] for i, key in enumerate(stored)}
    (cache / html.MATH_CACHE).write_text(json.dumps(forged), encoding="utf-8")
    converted: list[str] = []
    monkeypatch.setattr(html, "_latex_mathml", lambda latex, display: converted.append(latex) or None)
    monkeypatch.setattr(html, "_theorem_mathml", lambda theorem_id: converted.append(theorem_id) or None)
    text = html.render_html(_records(), [_verdict()], {}, [], tmp_path / "c" / "report.html", cache=cache) \
        .read_text(encoding="utf-8")
    assert "alert(1)" not in text and converted == [_verdict()["statement"], "bao.thm2.1"]
    # what is stored is what the last report used: entries of other formulas (or older code) drop out
    (cache / html.MATH_CACHE).write_text(json.dumps({"stale": "<math><mi>s</mi></math>"}), encoding="utf-8")
    monkeypatch.setattr(html, "_MATH_MEMO", {})
    other = _verdict(statement=r"\frac{1}{T^2}")
    html.render_html(_records(), [other], {}, [], tmp_path / "d" / "report.html", cache=cache)
    kept = json.loads((cache / html.MATH_CACHE).read_text(encoding="utf-8"))
    assert "stale" not in kept and len(kept) == 2


def test_conditions_are_one_table_with_sweep_points_as_columns() -> None:
    conditions = [{"condition": f"K={k}: a >= 4*L/mu", "holds": k != 8, "value": ""} for k in (2, 4, 8)]
    conditions += [{"condition": f"[mu={m}] mu < delta_f", "holds": True, "value": ""} for m in (0.1, 0.2)]
    conditions.append({"condition": "lambda_min(A) >= 0 (App. B, C: convex)", "holds": True, "value": 0.5})
    table = html._condition_table(conditions)
    assert table["columns"] == ["K=2", "K=4", "K=8", "mu=0.1", "mu=0.2", "every point"]
    rows = {r["condition"]: [c["mark"] if c else "" for c in r["cells"]] for r in table["rows"]}
    assert rows == {"a >= 4*L/mu": ["✓", "✓", "✗", "", "", ""], "mu < delta_f": ["", "", "", "✓", "✓", ""],
                    "lambda_min(A) >= 0 (App. B, C: convex)": ["", "", "", "", "", "✓"]}


def test_math_is_mathml_from_latex_or_the_catalogue_and_prose_stays_text() -> None:
    m = html.math_from_latex(r"\frac{C}{T} \le \epsilon")
    assert m is not None and m.startswith("<math") and "<mfrac>" in m and "xmlns" not in m
    assert html.math_from_latex("Fast-FedDA reaches a lower Frobenius error than FedDA and FedMiD at equal rounds") \
        is None
    assert html.math_from_latex(r"\text{<script>alert(1)</script>}") is None or "<script" not in \
        html.math_from_latex(r"\text{<script>alert(1)</script>}")
    t = html.math_from_theorem("bao.thm2.1")
    assert t is not None and "<mfrac>" in t
    assert html.math_from_theorem("no.such.theorem") is None
