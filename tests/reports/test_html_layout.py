"""The HTML summary fits a 1280-px window with the verdict visible (headless Chromium; skipped without it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from fedrates.reports import html

_LONG_ID = "bao.thm3.1.explicit/high-probability-with-a-long-suffix"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium is not installed (apt-get install chromium); the 1280-px layout is not checked")


def _report(tmp_path: Path) -> Path:
    verdicts = []
    for i in range(12):
        verdicts.append({
            "claim": f"{_LONG_ID}-{i}", "verdict": "conditions-not-met" if i % 3 else "pass",
            "title": "a title " * 20, "theorem": "bao.thm3.1.explicit", "algorithm": "mc_fedda", "problem": "lasso",
            "measured": "mean ‖w − w°‖ at round 40: " + "; ".join(f"alg_{k} {k}.123456" for k in range(12)),
            "predicted": "P(X ≤ bound) ≥ 0.9" + "x" * 120, "tolerance": "95% order statistics",
            "loose": i == 0, "bound_ratio": 1e-8, "profile": "quick", "run_at": "2026-01-01T00:00:00+00:00"})
    path = tmp_path / "report.html"
    html.render_html(pd.DataFrame({"claim": []}), verdicts, {"executable": "/x" * 300}, [], path)
    return path


@pytest.mark.slow  # a second headless-browser start-up (tests/reports/test_browser.py is the suite's): the long step
def test_summary_table_fits_1280px_with_verdict_first(tmp_path: Path) -> None:
    chromium = _chromium()
    path = _report(tmp_path)
    probe = tmp_path / "probe.html"
    script = ("<script>window.addEventListener('load', () => { const t = document.querySelector('table.summary');"
              "const v = t.querySelector('th'); const ids = [...t.querySelectorAll('td.id')];"
              "document.body.setAttribute('data-layout', JSON.stringify({page: document.documentElement.scrollWidth,"
              "table: t.getBoundingClientRect().right, verdict: v.textContent, verdictRight: v.getBoundingClientRect()"
              ".right, idLines: Math.max(...ids.map(c => c.querySelector('code').getClientRects().length)),"
              "idOverflow: Math.max(...ids.map(c => c.querySelector('code').getBoundingClientRect().right"
              " - c.getBoundingClientRect().right))}));});"
              "</script>")
    probe.write_text(path.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,1000"]
    dom = subprocess.run([chromium, *flags, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    found = re.search(r"data-layout=\"([^\"]+)\"", dom)
    assert found, "the layout probe did not run"
    import json

    layout = json.loads(found.group(1).replace("&quot;", '"'))
    assert layout["verdict"] == "verdict"  # verdict is the first column
    assert layout["page"] <= 1280, layout  # no horizontal scrolling
    assert layout["table"] <= 1280 and layout["verdictRight"] <= 1280, layout
    assert layout["idLines"] == 1, layout  # claim ids are never split
    assert layout["idOverflow"] <= 0, layout  # ... nor do they run into the next column
    shot = tmp_path / "summary.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", path.as_uri()], capture_output=True, timeout=120)
    from PIL import Image

    assert Image.open(shot).size[0] == 1280
