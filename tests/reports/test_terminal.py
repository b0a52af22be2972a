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
