"""The verdict table of `fedrates verify`: under 100 columns, verdict first, claim ids never split."""

from __future__ import annotations

import io

import pytest

from fedrates.reports.terminal import MAX_WIDTH, print_verdicts

IDS = ["bao.thm2.1/rate-T", "bao.thm3.1.explicit/high-probability", "bao.fig1/comparison-analysed"]


def _verdicts() -> list[dict]:
    return [{"claim": cid, "verdict": v, "measured": "mean ‖w − w°‖ at round 40: " + "c_fedda 11.4; " * 12,
             "predicted": "fast_fedda < fedda", "tolerance": "paired, 95%", "loose": cid.endswith("probability")}
            for cid, v in zip(IDS * 4, ["pass", "conditions-not-met", "erratum"] * 4, strict=True)]


@pytest.mark.parametrize("width", [80, 99, 200])
def test_table_is_compact_and_keeps_ids_whole(width: int) -> None:
    buf = io.StringIO()
    print_verdicts(_verdicts(), buf, tty=False, width=width)
    lines = buf.getvalue().splitlines()
    assert max(len(line) for line in lines) <= min(width, MAX_WIDTH) < 100
    assert len(lines) <= 2 * 12 + 6  # two lines per claim plus title and header
    for cid in IDS:
        assert sum(cid in line for line in lines) == 4  # whole on one line, every time
    header = next(line for line in lines if "claim" in line)
    assert header.index("verdict") < header.index("claim") < header.index("measured")
    assert sum("loose bound" in line for line in lines) == 4


LONG_VERDICTS = [
    {"claim": "bylinkin.thm7.mf.corrected/rounds", "verdict": "pass",
     "measured": "worst held-out mean/(C·rhs) = 0.987654321; loose bound ratio 1.234567e-05; "
                 + "; ".join(f"alg_{k} {k}.123456789" for k in range(9)),
     "predicted": "every mean/(C·rhs) ≤ 1 + 0.25 held out over 12 points with C calibrated on 3",
     "tolerance": "95% one-sided studentized bootstrap, 40 seeds"},
    {"claim": "dinh.rem1/svrg-large-beta", "verdict": "erratum", "erratum_kind": "statement-false",
     "measured": 1234567.891011, "predicted": "tau_max(beta) ≥ 1 for some beta ≥ 3.5", "tolerance": 0.0},
]


def _numbers(text: str) -> list[str]:
    import re

    return re.findall(r"[-+]?\d[\d.]*(?:e[-+]?\d+)?", text)


@pytest.mark.parametrize("width", [80, 100, 120])
def test_long_values_are_shortened_by_structure_never_mid_number(width: int) -> None:
    buf = io.StringIO()
    print_verdicts(LONG_VERDICTS, buf, tty=False, width=width)
    out = buf.getvalue()
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= min(width, MAX_WIDTH)
    # every number printed is a whole number of a verdict (or of a claim id), never a cut one
    allowed = set()
    for v in LONG_VERDICTS:
        measured = f"{v['measured']:.4g}" if isinstance(v["measured"], float) else str(v["measured"])
        allowed |= {*_numbers(measured), *_numbers(str(v["predicted"])), *_numbers(str(v["tolerance"])),
                    *_numbers(v["claim"]), "0"}
    printed = _numbers(out)
    assert printed and set(printed) <= allowed, set(printed) - allowed
    assert "1.235e+06" in out  # a short value is shown whole at every width
    if width >= 100:
        assert "0.987654321" in out


def test_fit_drops_whole_items_then_words() -> None:
    from fedrates.reports.terminal import fit

    assert fit("a 1.5; b 2.5; c 3.5", 100) == "a 1.5; b 2.5; c 3.5"
    assert fit("a 1.5; b 2.5; c 3.5", 18) == "a 1.5 … +2 more"
    assert fit("one two three 12345.678", 16) == "one two three …"
    assert fit("12345678901234567890", 8) == "12345678901234567890"  # a single value is never cut


def test_fit_never_leaves_a_label_without_its_value() -> None:
    from fedrates.reports.terminal import fit

    text = "first T with running average ≤ ε: 44 (MC agrees: mean/exact − 1 = -0.000165 at point 4 (mean 9.67))"
    assert fit(text, 60) == "first T with running average ≤ ε: 44 …"  # the trailing aside goes whole
    assert fit("worst held-out mean/(C·rhs) = 0.8123 over 12 points", 32) == "worst held-out mean/(C·rhs) …"
    for width in range(12, 60):
        kept = fit("slope −1.02 vs expected −1 at T = 1000 and K = 8", width).removesuffix(" …").split(" ")
        assert not kept[-1].endswith((":", "=")) and kept[-1] not in {"=", "vs", "at", "and"}, (width, kept)
