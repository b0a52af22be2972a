"""Rendering cost of the reports: incremental reruns and judging + report from stored records.

Two measurements, each the best of ``--repeat`` (default 3) in this one process, beside each other:

(a) **rerun into a full folder.** A copy of an existing run directory (``--run``, e.g. the whole quick run) gets a
    ``verify`` of a few of its claims (``--rerun``, default: its first 4), timed against the same ``verify`` into a
    new, empty folder. Both run with the same fresh base seed (a new one per repetition), so both compute the same
    sweep and the rerun changes those claims' results: the full folder then has to merge, and redraw the reports
    with only the changed claims' figures drawn (the others come from its figure cache). An untimed rerun first
    fills the copy's figure cache, as the run that made the folder would have. Target: full / new ≤ 1.2. Each
    repetition also prints what the two runs spent after their sweeps (``timings.json``): the sweeps compute the same
    points, so that difference is what the full folder costs more, without the sweep's own variation.
(b) **judging + report of every claim of the run from its stored records**, as ``verify`` does after its sweep:
    the claims judged and annotated in ``--jobs`` worker processes, which also draw the figures of the claims
    without a paper figure (``judge_claims``), then ``write_reports`` as ``verify`` calls it: page digests once, the
    paper figures drawn by the workers, the PDF (fonts subset once for the whole document) put together in this
    process while a forked process writes the HTML report. Into an
    empty figure cache ("cold"), and again with the figures of the cold pass in the cache ("warm", what a report of
    a folder whose claims did not change costs). Target ≤ 10 s on 2 idle cores, printed for both: cold includes
    drawing every figure again (about 0.4 s of CPU per claim, most of it matplotlib's text layout), warm is judging
    and putting both reports together from figures drawn before.

(c) with ``--after-sweep``: **what a fresh ``verify`` of every claim of the run adds after its sweep** (quick
    profile, ``--jobs``, a new folder): the claims are judged and drawn in the sweep's pool as they complete, so what
    is left is merging and writing the records and both reports; read from the run's ``timings.json``
    (``records_and_reports``), beside the sweep's wall time. Target: ≤ 10 s (what (b) cold measures besides is
    every figure drawn again in the report's own pass).

With ``--baseline``, (b) is also run the way it was before (judging in this process, each claim page with font
subsets of its own), cold, in the same process. Prints each time, the split of (b) into judging / drawing / PDF /
HTML, whether each target is met, and the load average before and after (times on a loaded machine are longer and
noisy: compare the ratio, not the seconds).
Usage: ``python benchmarks/report_render.py --run DIR [--rerun PATTERN] [--jobs 2] [--repeat 3] [--baseline]``; without
``--run`` it first writes one (``--only``, default ``bao.*``, quick profile).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

#: targets of the rendering work (issue text: a 4-claim rerun ≤ 1.2× a new folder; judging + report ≤ 10 s)
RATIO_TARGET = 1.2
REPORT_TARGET = 10.0


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def _verify(claims: list[Any], out: Path, jobs: int, seed: int) -> float:
    from fedrates.verify.pipeline import verify_claims

    start = time.perf_counter()
    verify_claims(claims, profile="quick", out=out, jobs=jobs, base_seed=seed, progress=False, write_pdf=True)
    return time.perf_counter() - start


def rerun_ratio(run: Path, rerun: list[Any], jobs: int, repeat: int, root: Path) -> tuple[float, float]:
    """(a): best times of the rerun into a copy of ``run`` and of the same run into a new folder."""
    full = root / "full"
    shutil.copytree(run, full, ignore=shutil.ignore_patterns("cache"))  # the sweep cache: other seeds anyway
    _verify(rerun, full, jobs, seed=999)  # untimed: the copy's figure cache as its own run would have left it
    _verify(rerun, root / "warm-up", jobs, seed=999)  # untimed: reference optima cached for both
    into_full, into_new = [], []
    for r in range(repeat):
        seed = 1000 + r
        into_new.append(_verify(rerun, root / f"new-{r}", jobs, seed))
        after_new = _after_sweep(root / f"new-{r}")
        into_full.append(_verify(rerun, full, jobs, seed))
        after_full = _after_sweep(full)
        # the two sweeps compute the same points: what the full folder costs more is what follows them, read
        # apart from the sweep's own variation (a second or more on a busy machine)
        extra = after_full - after_new
        print(f"  repetition {r + 1}: new folder {into_new[-1]:7.2f} s, full folder {into_full[-1]:7.2f} s; after "
              f"the sweep {after_new:.2f} s and {after_full:.2f} s (the full folder adds {extra:.2f} s, "
              f"{(into_new[-1] + extra) / into_new[-1]:.2f}× the new folder's run)")
    return min(into_full), min(into_new)


def _after_sweep(out: Path) -> float:
    """Wall seconds of a run after its sweep (records, verdicts and both reports), from its ``timings.json``."""
    wall = json.loads((out / "timings.json").read_text())["wall_seconds"]
    return float(wall["records_and_reports"] + wall["judge_and_draw"])


def judge_and_report(run: Path, dest: Path, cache: Path, jobs: int, baseline: bool = False) -> dict[str, float]:
    """(b): judge every claim of ``run`` from its stored records and write both reports; seconds per stage. With
    ``baseline``, as before judging moved to the workers: the claims judged in this process, the figures drawn by
    the workers afterwards, each claim's PDF pages with font subsets of their own."""
    import contextlib

    from fedrates.reports import pdf_fonts

    deferred = pdf_fonts.deferred_subsets
    if baseline:
        pdf_fonts.deferred_subsets = lambda: contextlib.nullcontext(False)
    try:
        return _judge_and_report(run, dest, cache, jobs, baseline)
    finally:
        pdf_fonts.deferred_subsets = deferred


def _judge_and_report(run: Path, dest: Path, cache: Path, jobs: int, baseline: bool) -> dict[str, float]:
    from fedrates.reports.drawing import draw_missing
    from fedrates.reports.html import render_html
    from fedrates.reports.pdf import render_pdf
    from fedrates.verify import claims as registry
    from fedrates.verify import records as rec
    from fedrates.verify.pipeline import annotate, collect_errata, judge_all, judge_claims, write_reports

    stored = json.loads((run / "verdicts.json").read_text())
    known = set(registry.ids())
    claims = [registry.get(str(v["claim"])) for v in stored if str(v["claim"]) in known]
    profile = str(stored[0].get("profile", "quick")) if stored else "quick"
    times: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    records, provenance = rec.read_records(run / "records.parquet")
    by_claim = {str(k): df for k, df in records.groupby("claim", sort=False)}
    stamp = "2000-01-01T00:00:00+00:00"
    if baseline:
        verdicts = judge_all(claims, by_claim, {}, profile)
        annotate(verdicts, by_claim, profile=profile, base_seed=0, timestamp=stamp)
    else:
        verdicts = judge_claims(claims, by_claim, {}, profile, base_seed=0, timestamp=stamp, jobs=jobs,
                                figures=(cache, True))
    errata = collect_errata(claims)
    times["judge"] = time.perf_counter() - start
    if baseline:  # as before: paper figures drawn by the workers, then the PDF, then the HTML, in this process
        mark = time.perf_counter()
        draw_missing(records, verdicts, cache, jobs=jobs, with_pdf=True)
        times["draw"] = time.perf_counter() - mark
        mark = time.perf_counter()
        shared: dict[str, Any] = {}
        render_pdf(records, verdicts, provenance, errata, dest / "report.pdf", shared=shared, cache=cache)
        times["pdf"] = time.perf_counter() - mark
        mark = time.perf_counter()
        render_html(records, verdicts, provenance, errata, dest / "report.html", shared=shared, cache=cache)
        times["html"] = time.perf_counter() - mark
    else:  # what verify does: digests once, paper figures in the workers, the HTML written beside the PDF
        dest.mkdir(parents=True, exist_ok=True)
        stages = write_reports(records, verdicts, provenance, errata, dest, jobs=jobs, cache=cache)
        times.update(draw=stages["draw"], pdf=stages["pdf"], html=stages["html_after_pdf"])
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu  # of this (the main) process: what the workers cannot take over
    times["claims"] = len(claims)
    return times


def _split(t: dict[str, float]) -> str:
    return (f"{t['total']:7.2f} s ({int(t['claims'])} claims: judging and drawing {t['judge']:.2f}, "
            f"paper figures {t['draw']:.2f}, "
            f"PDF {t['pdf']:.2f}, HTML {t['html']:.2f} (after the PDF; written beside it unless baseline); "
            f"main-process CPU {t['cpu']:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="an existing run directory (verdicts.json, records.parquet)")
    parser.add_argument("--only", default="bao.*", help="claims of the run written when --run is not given")
    parser.add_argument("--rerun", help="claims rerun in (a) (default: the run's first 4)")
    parser.add_argument("--jobs", type=int, default=2, help="workers (sweep and figures; default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--after-sweep", action="store_true",
                        help="(c) a fresh verify of every claim of the run: the wall time after its sweep")
    parser.add_argument("--baseline", action="store_true",
                        help="(b) also as before: judging in this process, font subsets per claim page")
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    from fedrates.verify import claims as registry

    print(_load())
    with tempfile.TemporaryDirectory(prefix="fedrates-report-bench-") as tmp:
        root = Path(tmp)
        if args.run:
            run = Path(args.run)
        else:
            run = root / "run"
            print(f"writing a quick run of {args.only} into a temporary folder first ...")
            _verify(registry.select(args.only), run, args.jobs, seed=0)
        stored = [str(v["claim"]) for v in json.loads((run / "verdicts.json").read_text())]
        rerun = registry.select(args.rerun) if args.rerun else [registry.get(c) for c in stored[:4]]
        print(f"run: {len(stored)} claims; rerun: {', '.join(c.id for c in rerun)}; jobs {args.jobs}")

        print("(a) verify of the rerun claims into the full folder vs into a new folder")
        t_full, t_new = rerun_ratio(run, rerun, args.jobs, args.repeat, root / "a")
        ratio = t_full / t_new
        print(f"    best: full folder {t_full:.2f} s, new folder {t_new:.2f} s, ratio {ratio:.2f} "
              f"(target <= {RATIO_TARGET}: {'met' if ratio <= RATIO_TARGET else 'NOT met'})")

        print(f"(b) judging + report (PDF and HTML) of every claim from the stored records, {args.jobs} workers")
        cold, warm = [], []
        for r in range(args.repeat):
            cache = root / "b" / f"figures-{r}"
            cold.append(judge_and_report(run, root / "b" / f"cold-{r}", cache, args.jobs))
            warm.append(judge_and_report(run, root / "b" / f"warm-{r}", cache, args.jobs))
            print(f"  repetition {r + 1}: cold {_split(cold[-1])}")
            print(f"                warm {_split(warm[-1])}")
        if args.baseline:
            base = [judge_and_report(run, root / "b" / f"base-{r}", root / "b" / f"base-figures-{r}", args.jobs,
                                     baseline=True) for r in range(args.repeat)]
            best_base = min(base, key=lambda t: t["total"])
            print(f"    baseline cold (judged here, fonts per claim): {_split(best_base)}")
        best_cold = min(cold, key=lambda t: t["total"])
        best_warm = min(warm, key=lambda t: t["total"])
        print(f"    best cold (every figure drawn): {_split(best_cold)} "
              f"(target <= {REPORT_TARGET:g} s: {'met' if best_cold['total'] <= REPORT_TARGET else 'NOT met'})")
        print(f"    best warm (figures cached):     {_split(best_warm)} "
              f"(target <= {REPORT_TARGET:g} s for judging + both reports when the figures were drawn before, e.g. "
              f"by the sweep's workers: {'met' if best_warm['total'] <= REPORT_TARGET else 'NOT met'})")
        if args.after_sweep:
            after_sweep(stored, args.jobs, args.repeat, root / "c")
    print(_load())


def after_sweep(claim_ids: list[str], jobs: int, repeat: int, root: Path) -> None:
    """(c): fresh verifies of these claims (quick profile, reference optima cached by an untimed first run); prints
    the sweep's wall time and what follows it (records and both reports) from each run's ``timings.json``."""
    from fedrates.verify import claims as registry

    claims = [registry.get(c) for c in claim_ids]
    print(f"(c) a fresh verify of the {len(claims)} claims: wall time after the sweep, {jobs} workers")
    _verify(claims, root / "warm-up", jobs, seed=0)  # untimed: reference optima cached
    after = []
    for r in range(repeat):
        out = root / f"fresh-{r}"
        total = _verify(claims, out, jobs, seed=0)
        wall = json.loads((out / "timings.json").read_text())["wall_seconds"]
        after.append(wall["records_and_reports"] + wall["judge_and_draw"])
        print(f"  repetition {r + 1}: {total:7.2f} s in all, sweep {wall['sweep']:.2f} s (claims judged and drawn in "
              f"its pool), after it {after[-1]:.2f} s (judging left {wall['judge_and_draw']:.2f}, records and "
              f"reports {wall['records_and_reports']:.2f})")
    best = min(after)
    print(f"    best after the sweep: {best:.2f} s (target <= {REPORT_TARGET:g} s: "
          f"{'met' if best <= REPORT_TARGET else 'NOT met'})")


if __name__ == "__main__":
    main()
