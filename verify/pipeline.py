"""The verification pipeline: sweep → judge → records, verdicts, errata, provenance → HTML/PDF report.

Nothing computed is lost: each finished sweep point is cached as soon as it completes (:mod:`verify.sweep`), and a
claim that raises is reported with verdict ``error`` and its message while the other claims still run.

A partial run never silently replaces a fuller one: when the output directory already holds verdicts, the claims of
this run replace their own earlier verdicts and records (matched by claim id) and every other claim is kept, so the
report always shows every claim verified in that directory, each with the profile, base seed and date of the run
that produced it (``merge=False`` writes only this run's claims). Each verdict also carries the figure description
of :mod:`fedrates.verify.plotdata` (``plot``) and the broken variants that name the claim (``variants``).

With ``jobs`` > 1 the claims are judged and annotated in worker processes, which also draw each claim's figures into
the run directory's figure cache: with the local pool, each claim as soon as its last sweep point is in, in the
sweep's own pool (:func:`fedrates.verify.sweep.run_claims`'s follow-up); otherwise after the sweep
(:func:`judge_claims`). The main process merges the verdicts with earlier ones, writes the files and puts the
reports together from the cache.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from fedrates.solvers import certify
from fedrates.verify import margins, outputs
from fedrates.verify import records as rec
from fedrates.verify.claims.base import Claim
from fedrates.verify.sweep import run_claims

__all__ = ["verify_claims", "judge_all", "judge_claims", "collect_errata", "annotate", "merge_previous",
           "not_a_verdict", "write_reports"]


def _error_verdict(claim: Claim, message: str) -> dict[str, Any]:
    return {
        "claim": claim.id, "title": claim.title, "theorem": claim.theorem, "statement": "",
        "algorithm": claim.algorithm, "problem": claim.problem, "verdict": "error", "measured": "—",
        "predicted": "—", "tolerance": "—", "regime": claim.regime, "why": claim.why, "conditions": [],
        "constants": {}, "seeds": [], "message": message, "x": claim.x, "metric": claim.metric, "fit": None,
        "calibrated_constant": None, "margin": None, "informational": None,
        "erratum": None if claim.erratum is None else claim.erratum.as_dict(),
        "erratum_kind": None if claim.erratum is None else claim.erratum.kind,
    }


def judge_all(claims: Sequence[Claim], records: dict[str, pd.DataFrame], errors: dict[str, str],
              profile: str) -> list[dict[str, Any]]:
    """One verdict per claim (:func:`judge_one`); a claim whose sweep failed ends as ``error`` with its reason."""
    return [_error_verdict(claim, errors[claim.id]) if claim.id in errors
            else judge_one(claim, records[claim.id] if claim.id in records else rec.empty_records(), profile)
            for claim in claims]


def judge_one(claim: Claim, records: pd.DataFrame, profile: str) -> dict[str, Any]:
    """The verdict of one claim on its records, as ``verify`` and ``selfcheck`` both give it.

    A claim whose run produced no records ends as ``error`` without being judged: no verdict — least of all a
    reproduced erratum, which an erratum claim's failing check would otherwise become — rests on no data. A judge
    that crashes or returns anything but :meth:`Claim.verdict`'s dict ends as ``error`` with one line. The constants
    the claim computed while judging are checked against their certificates (:func:`certify_constants`).
    """
    if records is None or not len(records):
        return _error_verdict(claim, "the claim's run produced no records: nothing to judge")
    try:
        with certify.observing() as seen:
            verdict = claim.judge(records, profile)
        wrong = not_a_verdict(claim, verdict)
        if wrong:
            return _error_verdict(claim, wrong)
        certify_constants(verdict, seen)
        return verdict
    except Exception as exc:  # a crash in one claim marks that claim, the others still run
        return _error_verdict(claim, f"{type(exc).__name__}: {exc}")


def not_a_verdict(claim: Claim, verdict: Any) -> str | None:
    """None when ``verdict`` is what :meth:`Claim.verdict` builds for this claim; else the one line that ends the
    claim as ``error`` (a judge returning a plain dict or a CheckResult would otherwise crash the report later)."""
    from fedrates.verify.claims.base import VERDICTS

    if isinstance(verdict, dict) and verdict.get("claim") == claim.id and verdict.get("verdict") in VERDICTS:
        return None
    if isinstance(verdict, dict):
        keys = ", ".join(sorted(map(str, verdict))[:6]) or "no keys"
        what = (f"a dict for claim {verdict['claim']!r}" if "claim" in verdict and verdict["claim"] != claim.id
                else f"a dict with verdict {verdict['verdict']!r}" if "claim" in verdict
                else f"a plain dict ({keys})")
    else:
        what = f"a {type(verdict).__name__}"
    return f"judge of {claim.id} returned {what}, expected self.verdict(...)"


def certify_constants(verdict: dict[str, Any], sources: Sequence[Any]) -> None:
    """Check the certificates of the constants a claim computed while judging (witness and independent upper
    side, :mod:`fedrates.solvers.certify`): when two routes disagree, a ``pass``, ``fail`` or ``informational``
    verdict becomes ``inconclusive`` with both numbers — its regime and bound would rest on a constant that is not
    the one the paper defines. Records ``certified`` = {sources, checked, disagreements} in the verdict."""
    issues = certify.check_certified(*sources) if sources else []
    checked = sum(len(getattr(s, "certificates", {}) or {}) for s in sources)
    verdict["certified"] = {"sources": len(sources), "checked": checked, "disagreements": issues}
    if issues and verdict.get("verdict") in ("pass", "fail", "informational"):
        verdict["verdict"] = "inconclusive"
        verdict["message"] = (f"{verdict.get('message', '')}; constants disagree between their two routes: "
                              + "; ".join(issues))


def erratum_key(entry: dict[str, Any]) -> str:
    """What identifies an erratum across claims and runs: the paper and the location in it."""
    paper = str(entry.get("theorem", "")).split(",")[0].split(".")[0].strip()
    return f"{paper}|{str(entry.get('where', '')).strip().lower()}"


def collect_errata(claims: Sequence[Claim]) -> list[dict[str, Any]]:
    """One entry per erratum (paper and location) of the papers behind the claims: every catalogued erratum of those
    papers (whether or not a claim tests it) and every claim-level erratum, each with its kind, location, quote, what
    is true and the evidence (:class:`fedrates.verify.errata.Erratum`), the theorems it concerns and the claims
    that test it."""
    from fedrates.bounds import catalog

    papers = {c.theorem.split(".")[0] for c in claims if c.theorem}
    by_text: dict[str, dict[str, Any]] = {}

    def add(erratum: Any, resolution: str, theorem: str, claim: str | None) -> None:
        # one entry per erratum: a claim's erratum at the same place of the same paper as a catalogued one is the
        # same erratum (the catalogued text is kept, the claim is listed)
        key = erratum_key({"theorem": theorem, "where": erratum.where})
        entry = by_text.setdefault(key, {**erratum.as_dict(), "theorem": "", "resolution": resolution,
                                         "claims": []})
        ids = [t for t in entry["theorem"].split(", ") if t]
        if theorem and theorem not in ids:
            entry["theorem"] = ", ".join([*ids, theorem])
        if claim and claim not in entry["claims"]:
            entry["claims"].append(claim)

    tested: dict[str, list[Claim]] = {}
    for claim in claims:
        tested.setdefault(claim.theorem, []).append(claim)
    for tid in catalog.ids():
        if tid.split(".")[0] not in papers:
            continue
        for note in catalog.get(tid).errata:
            key = erratum_key({"theorem": tid, "where": note.erratum.where})
            testing = [c.id for c in tested.get(tid, [])
                       if c.erratum is None or erratum_key({"theorem": c.theorem, "where": c.erratum.where}) == key]
            for claim_id in testing or [None]:
                add(note.erratum, note.resolution, tid, claim_id)
    for claim in claims:
        if claim.erratum is not None:
            add(claim.erratum, f"claim {claim.id}", claim.theorem, claim.id)
    return list(by_text.values())


def annotate(verdicts: list[dict[str, Any]], records: dict[str, pd.DataFrame], *, profile: str, base_seed: int,
             timestamp: str) -> None:
    """Add to each verdict (in place) where it comes from (``profile``, ``base_seed``, ``run_at``, ``fedrates``),
    the broken variants naming it (``variants``) and its figure description (``plot``); a bound claim whose verdict
    has no ``bound_ratio`` gets the one of its figure (max plotted statistic / bound, flagged ``loose`` below 1e-3)."""
    caught = _variants_naming([str(v["claim"]) for v in verdicts])
    for v in verdicts:
        annotate_one(v, records.get(str(v["claim"])), profile=profile, base_seed=base_seed, timestamp=timestamp,
                     variants=caught.get(str(v["claim"]), []))


def _variants_naming(claim_ids: Sequence[str]) -> dict[str, list[str]]:
    """claim id → the broken variants of the catalogue that name it (empty, with a warning, when the catalogue
    cannot be loaded: a broken catalogue must not lose the verdicts)."""
    from fedrates.verify import claims as registry
    from fedrates.verify.plotdata import discriminating

    try:
        return discriminating(sorted(set(registry.ids()) | set(claim_ids)))
    except Exception as exc:  # noqa: BLE001 - a broken catalogue must not lose the verdicts
        sys.stderr.write(f"fedrates: warning: broken-variant catalogue unavailable ({exc})\n")
        return {}


def annotate_one(v: dict[str, Any], rows: pd.DataFrame | None, *, profile: str, base_seed: int, timestamp: str,
                 variants: Sequence[str]) -> None:
    """:func:`annotate` of one verdict, given the broken variants naming its claim."""
    from fedrates import __version__
    from fedrates.verify.plotdata import plot_spec

    v.update(profile=profile, base_seed=int(base_seed), run_at=timestamp, fedrates=__version__)
    v["variants"] = list(variants)
    v["plot"] = None
    if v["verdict"] in ("error", "conditions-not-met") or rows is None or rows.empty or not v.get("x"):
        return
    try:
        spec = plot_spec(rows, v)
    except (ValueError, KeyError) as exc:
        v["plot_note"] = str(exc)
        return
    v["plot"] = spec
    if v.get("bound_ratio") is None and spec.get("bound_ratio") is not None:
        v["bound_ratio"], v["loose"] = spec["bound_ratio"], spec["loose"]
        v["bound_ratio_source"] = spec.get("bound_ratio_source")
        if not v.get("margin") and spec["bound_ratio"] is not None:
            _demote_if_cannot_fail(v, margins.slack_from_ratio(spec["bound_ratio"]))


def _judge_annotated(claim: Claim, rows: pd.DataFrame | None, error: str | None, profile: str, base_seed: int,
                     timestamp: str, variants: Sequence[str], figures: tuple[str, bool] | None
                     ) -> dict[str, Any]:
    """One claim's verdict, judged (:func:`judge_one`) and annotated (:func:`annotate_one`) — a worker task of
    :func:`judge_claims`. With ``figures`` = ``(figure cache, with PDF)`` the claim's figures are then drawn into
    that cache when missing (claims without a paper figure only: a paper figure draws from the records of other
    claims, known only once earlier results are merged; :func:`fedrates.reports.drawing.draw_missing` draws those)."""
    return _judge_and_draw(claim, rows, error, profile, base_seed, timestamp, variants, figures)[0]


def _judge_and_draw(claim: Claim, rows: pd.DataFrame | None, error: str | None, profile: str, base_seed: int,
                    timestamp: str, variants: Sequence[str], figures: tuple[str, bool] | None
                    ) -> tuple[dict[str, Any], str | None]:
    """:func:`_judge_annotated` and the digest of the claim's PDF pages when the worker drew (or found) them — the
    task the sweep's pool runs for each claim: the report then need not compute that digest again (None: it does)."""
    rows = rows if rows is not None else rec.empty_records()
    verdict = _error_verdict(claim, error) if error is not None else judge_one(claim, rows, profile)
    annotate_one(verdict, rows, profile=profile, base_seed=base_seed, timestamp=timestamp, variants=variants)
    digest = None
    if figures is not None:
        from fedrates.reports import drawing

        try:
            digest = drawing.draw_claim(rows, verdict, Path(figures[0]), with_pdf=figures[1])
        except Exception:  # noqa: BLE001 - a figure that cannot be drawn here is drawn (and explained) by the report
            pass
    return verdict, digest


#: tasks for a worker pool: (function, positional arguments)
_Tasks = list[tuple[Callable[..., Any], tuple]]


def _paper_pages_when_complete(claims: Sequence[Claim], figures: tuple[str, bool]
                               ) -> Callable[[str, Any, dict[str, pd.DataFrame]], _Tasks]:
    """An ``after_follow`` of :func:`fedrates.verify.sweep.run_claims` for a run into a fresh directory: once every
    claim of a paper is judged, the pages of its claims with a paper figure (drawn from the records of the whole
    paper) are drawn in the pool too, from the records the report will hold — this run's, in the order of
    ``claims``. Nothing rests on it: the pages are stored under the digest of what they were drawn from, and the
    report draws any page it does not find."""
    from fedrates.reports import paper_figures

    members: dict[str, list[str]] = {}
    for claim in claims:
        members.setdefault(claim.id.split(".", 1)[0], []).append(claim.id)
    verdicts: dict[str, dict[str, Any]] = {}

    def after(claim_id: str, judged: Any, records: dict[str, pd.DataFrame]) -> _Tasks:
        verdicts[claim_id] = judged[0]  # (verdict, page digest) of _judge_and_draw
        ids = members.get(claim_id.split(".", 1)[0], [])
        if not all(i in verdicts for i in ids):
            return []
        try:
            frames = [records[i] for i in ids if i in records and len(records[i])]
            paper = pd.concat(frames, ignore_index=True) if frames else rec.empty_records()
        except Exception:  # noqa: BLE001 - a speculative drawing never stops the sweep: the report draws the pages
            return []
        return [(_draw_with_paper, (records[i], paper, verdicts[i], *figures)) for i in ids
                if i in paper_figures.PAPER_FIGURES and i in records]
    return after


def _draw_with_paper(rows: pd.DataFrame, paper: pd.DataFrame, verdict: dict[str, Any], cache: str,
                     with_pdf: bool) -> None:
    """A worker task: a claim's figures, its paper figure included (:func:`fedrates.reports.drawing.draw_claim`);
    a figure that cannot be drawn here is drawn (and explained) by the report."""
    from fedrates.reports import drawing

    try:
        drawing.draw_claim(rows, verdict, Path(cache), with_pdf=with_pdf, paper=paper)
    except Exception:  # noqa: BLE001
        pass


def judge_claims(claims: Sequence[Claim], records: dict[str, pd.DataFrame], errors: dict[str, str], profile: str,
                 *, base_seed: int, timestamp: str, jobs: int = 1, figures: tuple[Path, bool] | None = None
                 ) -> list[dict[str, Any]]:
    """:func:`judge_all` then :func:`annotate`, with ``jobs`` > 1 in worker processes (one task per claim, at most
    two queued per worker, so that memory stays bounded): the main process only sends each claim its records and
    collects the verdicts, in the order of ``claims``. With ``figures`` = ``(figure cache, with PDF)`` the workers
    also draw each claim's figures into that cache (see :func:`_judge_annotated`), so that the reports only put
    them together. Identical verdicts whatever ``jobs``: each claim is judged by the same code on the same records;
    a task whose worker dies is judged again in this process."""
    caught = _variants_naming([c.id for c in claims])
    args = [(claim, records.get(claim.id), errors.get(claim.id), profile, int(base_seed), timestamp,
             caught.get(claim.id, []), None) for claim in claims]
    if jobs <= 1 or len(claims) < 2:
        return [_judge_annotated(*a) for a in args]
    from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait

    from fedrates.verify import executors

    drawn = None if figures is None else (str(figures[0]), bool(figures[1]))
    workers = min(jobs, len(claims))
    _before_forking(figures is not None)
    results: dict[int, dict[str, Any]] = {}
    try:
        with executors.local(workers) as pool:
            in_flight: dict[Future, int] = {}

            def settle(done: set[Future]) -> None:
                for fut in done:
                    i = in_flight.pop(fut)
                    if fut.exception() is None:
                        results[i] = fut.result()

            for i, a in enumerate(args):
                if len(in_flight) >= 2 * workers:
                    settle(wait(in_flight, return_when=FIRST_COMPLETED).done)
                in_flight[pool.submit(_judge_annotated, *a[:-1], drawn)] = i
            settle(wait(in_flight).done)
    except BrokenExecutor:  # a worker died (e.g. out of memory): the claims not judged yet are judged here
        pass
    return [results[i] if i in results else _judge_annotated(*a) for i, a in enumerate(args)]


def _demote_if_cannot_fail(verdict: dict[str, Any], margin: dict[str, Any]) -> None:
    """Record a margin found after judging (from the figure) and turn a ``pass`` that cannot fail in practice
    (slack above :data:`margins.SHARP_SLACK`) into ``informational``."""
    verdict["margin"] = margin
    if verdict.get("verdict") == "pass" and not verdict.get("erratum") and margins.cannot_fail(margin):
        reason = f"bound {margin['value']:.3g}× above the measurement: cannot fail in practice"
        verdict["verdict"] = "informational"
        verdict["informational"] = reason
        verdict["message"] = f"{verdict.get('message', '')}; informational: {reason}"


def merge_previous(out: Path, verdicts: list[dict[str, Any]], records: pd.DataFrame,
                   errata: list[dict[str, str]]) -> tuple[list[dict[str, Any]], pd.DataFrame, list[dict[str, str]],
                                                           list[str]]:
    """Keep the claims of an earlier run in ``out`` that this run did not verify (matched by claim id).

    Returns ``(verdicts, records, errata, kept_claim_ids)``: earlier verdicts first in their order, with this run's
    verdicts replacing their own earlier entries in place and new claims appended. An unreadable earlier run is left
    out with a warning (it is overwritten, never trusted).
    """
    path = out / "verdicts.json"
    if not path.is_file():
        return verdicts, records, errata, []
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(old, dict):
            old = old.get("verdicts", [])
        if not isinstance(old, list) or not all(isinstance(v, dict) and "claim" in v for v in old):
            raise ValueError("not a list of verdicts")
        new_ids = {str(v["claim"]) for v in verdicts}
        old_ids = {str(v["claim"]) for v in old} - new_ids
        old_records = rec.empty_records()
        for name in ("records.parquet", "records.csv"):
            if (out / name).is_file():
                old_records = rec.read_records(out / name, claims=old_ids)[0]  # the rows of the claims kept
                break
        old_errata = json.loads((out / "errata.json").read_text(encoding="utf-8")) \
            if (out / "errata.json").is_file() else []
    except (OSError, ValueError, RecursionError) as exc:
        sys.stderr.write(f"fedrates: warning: earlier results in {out} are unreadable ({exc}); replacing them\n")
        return verdicts, records, errata, []
    new_by_id = {str(v["claim"]): v for v in verdicts}
    merged: list[dict[str, Any]] = []
    kept: list[str] = []
    for v in old:
        cid = str(v["claim"])
        if cid in new_by_id:
            merged.append(new_by_id.pop(cid))
        else:
            merged.append(v)
            kept.append(cid)
    merged.extend(v for v in verdicts if str(v["claim"]) in new_by_id)
    frames = [f for f in (old_records, records) if len(f)]
    all_records = pd.concat(frames, ignore_index=True) if frames else rec.empty_records()
    from fedrates.verify.errata import ERRATUM_KINDS

    # entries of an older format (no kind) are dropped: every erratum written carries its kind
    by_text = {erratum_key(e): e for e in old_errata if isinstance(e, dict) and e.get("kind") in ERRATUM_KINDS}
    by_text.update({erratum_key(e): e for e in errata})
    return merged, all_records, list(by_text.values()), kept


def verify_claims(claims: Sequence[Claim], *, profile: str, out: Path, jobs: int = 1, base_seed: int = 0,
                  use_cache: bool = True, progress: bool = True,
                  write_pdf: bool = True, merge: bool = True, write_report: bool = True,
                  on_verdicts: Callable[[list[dict[str, Any]]], None] | None = None) -> dict[str, Any]:
    """Run the claims and write ``records.parquet``, ``verdicts.json``, ``errata.json``, ``report.html`` (and
    ``report.pdf``). With ``merge`` (default) earlier claims in ``out`` not run now are kept (see the module
    docstring); the returned ``verdicts`` are this run's, ``kept`` the ids of earlier claims kept. ``on_verdicts``
    receives this run's verdicts before anything is written. Without ``write_report`` no figure is drawn and no
    report written: the reports of earlier results in ``out`` are removed (they would no longer describe its
    verdicts), and ``fedrates report`` renders them from the files written."""
    from fedrates.reports.html import FIGURE_CACHE
    from fedrates.verify import executors

    cache_root = out / "cache" / profile if use_cache else None
    bar = _Progress(enabled=progress)
    clock = {"started": time.perf_counter(), "cpu": time.process_time()}
    timestamp = datetime.now(UTC).isoformat(timespec="seconds")
    figures = (str(out / FIGURE_CACHE), bool(write_pdf)) if write_report else None
    then = None
    if jobs > 1 and executors.active() is None:
        # with the local pool, each claim is judged, annotated and drawn (when it has no paper figure) in the pool as
        # soon as its last point is in, behind the points queued: the cores the sweep's last long points leave idle
        # judge the claims that are done (a Dask cluster only sweeps: the figure cache is on this machine)
        caught = _variants_naming([c.id for c in claims])
        _before_forking(write_report)

        def then(claim: Claim, rows: pd.DataFrame | None, error: str | None) -> tuple[Callable[..., Any], tuple]:
            return _judge_and_draw, (claim, rows, error, profile, int(base_seed), timestamp,
                                      caught.get(claim.id, []), figures)
    fresh = not merge or not (out / "verdicts.json").is_file()
    try:
        # the PDF's errata pages depend on the claims alone: drawn in the pool behind the points (a fresh folder's
        # errata are the claims' own; a rerun merges earlier ones, whose pages its report has drawn already)
        drawn_here = then is not None and fresh and figures is not None
        also = [(_errata_pages, (list(claims), figures[0]))] if drawn_here and write_pdf else []
        sweep = run_claims(claims, profile, cache_root, jobs=jobs, base_seed=base_seed, on_progress=bar.update,
                           then=then, after_follow=_paper_pages_when_complete(claims, figures) if drawn_here
                           else None, also=also)
    finally:
        bar.close()
    clock["swept"] = time.perf_counter()
    # the claims not judged in the sweep's pool (all of them without one): judged now, in worker processes with
    # jobs > 1; the same code on the same records either way, so the verdicts do not depend on where they are judged
    rest = [c for c in claims if c.id not in sweep.followed]
    judged = dict(zip([c.id for c in rest], judge_claims(
        rest, sweep.records, sweep.errors, profile, base_seed=base_seed, timestamp=timestamp, jobs=jobs,
        figures=(out / FIGURE_CACHE, write_pdf) if write_report else None), strict=True)) if rest else {}
    verdicts = [sweep.followed[c.id][0] if c.id in sweep.followed else judged[c.id] for c in claims]
    # digests of the pages the sweep's workers drew, computed from this run's records and verdicts: the report reuses
    # them for these claims (their records and verdicts are the report's: a claim of this run replaces any earlier)
    known_digests = {cid: digest for cid, (_, digest) in sweep.followed.items() if digest}
    clock["judged"] = time.perf_counter()
    frames = [df for df in sweep.records.values() if len(df)]
    records = pd.concat(frames, ignore_index=True) if frames else rec.empty_records()
    errata = collect_errata(claims)
    if on_verdicts is not None:  # shown before any large write: a full disk loses no verdict
        on_verdicts(verdicts)
    # one writer per output directory, from the merge-read to the last write; leftovers removed; manifest last;
    # an unwritable directory (full disk) ends in one line with this run's verdicts kept (verify.outputs)
    stages: dict[str, float] = {}  # wall seconds of the report's stages (none when the reports are current)
    with outputs.writing(out, verdicts, records, check_earlier=merge):
        all_verdicts, all_records, all_errata, kept = (
            merge_previous(out, verdicts, records, errata) if merge else (verdicts, records, errata, []))
        if kept:
            from fedrates.verify.plotdata import fill_missing

            fill_missing(all_records, all_verdicts)  # earlier verdicts written before figures were described
            if write_pdf and write_report:  # the kept claims' pages, drawn from unchanged inputs: their digests
                from fedrates.reports.pdf import kept_page_digests

                known_digests = {**kept_page_digests(out / FIGURE_CACHE, all_verdicts, kept, [c.id for c in claims]),
                                 **known_digests}
        seeds = sorted({s for v in all_verdicts for s in v.get("seeds", [])})
        provenance = rec.provenance(seeds=seeds, extra={"profile": profile, "base_seed": base_seed, "jobs": jobs,
                                                        "points_computed": sweep.computed,
                                                        "points_cached": sweep.cached,
                                                        "claims_this_run": [c.id for c in claims],
                                                        "claims_kept_from_earlier_runs": kept})
        rec.write_records(all_records, out / "records.parquet", provenance)
        rec.write_json_atomic(all_verdicts, out / "verdicts.json")
        rec.write_json_atomic(all_errata, out / "errata.json")
        digest = _report_digest(all_records, all_verdicts, all_errata, write_pdf) if write_report else None
        if digest is None:  # no report: none of earlier results stays beside these verdicts
            for name in ("report.html", "report.pdf", _REPORT_DIGEST):
                (out / name).unlink(missing_ok=True)
        elif not _report_current(out, digest, write_pdf):  # a resume with unchanged results keeps its report
            (out / _REPORT_DIGEST).unlink(missing_ok=True)
            stages = write_reports(all_records, all_verdicts, provenance, all_errata, out, jobs=jobs,
                                   write_pdf=write_pdf, digests=known_digests)
            rec.write_json_atomic({"digest": digest}, out / _REPORT_DIGEST)
        rec.write_json_atomic(_timings(clock, sweep, profile, jobs, stages), out / "timings.json")
        outputs.write_manifest(out)
    return {"verdicts": verdicts, "records": records, "provenance": provenance, "errata": errata, "kept": kept,
            "all_verdicts": all_verdicts}


def write_reports(records: pd.DataFrame, verdicts: list[dict[str, Any]], provenance: dict[str, Any],
                  errata: list[dict[str, Any]], out: Path, *, jobs: int, write_pdf: bool = True,
                  cache: Path | None = None, digests: dict[str, str] | None = None,
                  title: str = "fedrates verification report") -> dict[str, float]:
    """Write ``report.html`` (and ``report.pdf``) of these results into ``out``, with the figures of ``cache``
    (default: the run directory's figure cache); returns the wall seconds of each stage.

    Each claim's page digest is computed once; the pages not cached yet are drawn in ``jobs`` worker processes
    (:func:`fedrates.reports.drawing.draw_missing`); with a PDF and ``jobs`` > 1 the HTML report is written in a
    forked process (:func:`_beside`) while this one puts the PDF together, each figure drawn once for both, and the
    PDF's front pages are drawn in another.
    ``digests``: page digests already known (claim id → digest, computed from these claims' records and verdicts);
    the others are computed here."""
    from fedrates.reports.drawing import draw_missing
    from fedrates.reports.html import FIGURE_CACHE, render_html
    from fedrates.reports.pdf import page_digests, render_pdf, store_page_digests

    cache = cache if cache is not None else out / FIGURE_CACHE
    times: dict[str, float] = {}
    mark = time.perf_counter()
    if write_pdf:  # computed once, used by all three steps
        known = digests or {}
        digests = {**page_digests(records, [v for v in verdicts if str(v.get("claim", "")) not in known]), **known}
        store_page_digests(cache, digests, verdicts)
    else:
        digests = None
    times["digests"], mark = time.perf_counter() - mark, time.perf_counter()
    _load_catalogue()  # here, once: inherited by the forked processes below, which would each load it
    draw_missing(records, verdicts, cache, jobs=jobs, with_pdf=write_pdf, digests=digests)
    times["draw"], mark = time.perf_counter() - mark, time.perf_counter()
    html_beside = _beside(_write_html, (records, verdicts, provenance, errata, str(out), str(cache), digests, title),
                          "fedrates-html") if write_pdf and jobs > 1 else None
    front_beside = _beside(_draw_front, (verdicts, provenance, errata, str(cache)), "fedrates-front") \
        if write_pdf and jobs > 1 else None
    shared: dict[str, Any] | None = None
    if write_pdf:  # each figure drawn once: the PDF pages first, their figures reused as SVG by the HTML report
        shared = {}
        render_pdf(records, verdicts, provenance, errata, out / "report.pdf", title=title, shared=shared, cache=cache,
                   digests=digests, front_drawn=None if front_beside is None else lambda: _joined(front_beside))
    times["pdf"], mark = time.perf_counter() - mark, time.perf_counter()
    if html_beside is None or not _joined(html_beside):
        render_html(records, verdicts, provenance, errata, out / "report.html", title=title, shared=shared,
                    cache=cache)
    times["html_after_pdf"] = time.perf_counter() - mark
    return times


def _errata_pages(claims: list[Claim], cache: str) -> int:
    """Draw the PDF report's errata pages of these claims' errata (:func:`collect_errata`) into the figure cache, in
    a worker process (:func:`fedrates.reports.pdf.draw_errata_pages`): the report finds them there."""
    from fedrates.reports.pdf import draw_errata_pages

    return draw_errata_pages(collect_errata(claims), Path(cache))


def _before_forking(figures: bool) -> None:
    """Load here what this process needs after the workers are done anyway — the theorem catalogue (scorecards,
    statements) and, when the workers draw or digest figures, the report modules (matplotlib, the PDF and HTML
    writers) — so that the forked workers inherit them instead of each loading them again (about 0.6 s and 1.1 s
    of CPU per worker)."""
    _load_catalogue()
    if figures:
        from fedrates.reports import drawing  # noqa: F401 - imported for the workers to inherit


def _load_catalogue() -> None:
    """Load the catalogue of theorems (the scorecards and the statements' math read it)."""
    try:
        from fedrates.bounds import catalog

        catalog.ids()
    except Exception:  # noqa: BLE001 - a plugin that fails to load is reported where its theorems are shown
        pass


def _beside(target: Callable[..., None], args: tuple, name: str) -> Any:
    """Start ``target(*args)`` in a forked process (it exits 0 when it did its work, 1 otherwise), so that it runs on
    the other core while this process puts the PDF together: :func:`_write_html` writes ``report.html`` from the
    figures of the PDF pages in the figure cache, :func:`_draw_front` draws the PDF's front pages into it. None when
    this platform cannot fork (this process then does that work itself, after the PDF or as it goes)."""
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return None
    child = context.Process(target=target, args=args, name=name, daemon=True)
    child.start()
    return child


def _draw_front(verdicts: list[dict[str, Any]], provenance: dict[str, Any], errata: list[dict[str, Any]],
                cache: str) -> None:
    """The forked process that draws the PDF report's front pages into the figure cache
    (:func:`fedrates.reports.pdf.draw_front_pages`): whatever it leaves undrawn, the PDF draws itself."""
    import os

    from fedrates.reports.pdf import draw_front_pages

    try:
        draw_front_pages(verdicts, provenance, errata, Path(cache))
        code = 0
    except BaseException:  # noqa: BLE001 - the parent draws the missing pages and reports what goes wrong
        code = 1
    os._exit(code)


def _write_html(records: pd.DataFrame, verdicts: list[dict[str, Any]], provenance: dict[str, Any],
                errata: list[dict[str, Any]], out: str, cache: str, digests: dict[str, str] | None,
                title: str = "fedrates verification report") -> None:
    """The forked process (:func:`_beside`) that writes the HTML report: exits 0 once ``report.html`` is written, 1
    otherwise (the parent then writes it itself)."""
    import os

    from fedrates.reports.html import render_html
    from fedrates.reports.pdf import page_figures

    try:
        shared = page_figures(records, verdicts, Path(cache), digests)
        render_html(records, verdicts, provenance, errata, Path(out) / "report.html", title=title, shared=shared,
                    cache=Path(cache))
        code = 0
    except BaseException:  # noqa: BLE001 - the parent writes the report and reports what goes wrong
        code = 1
    os._exit(code)  # no exit handlers of the parent's state (atexit, pools) in a forked child


def _joined(child: Any) -> bool:
    """Wait for a process of :func:`_beside`; True when it did its work."""
    child.join()
    return child.exitcode == 0


def _timings(clock: dict[str, float], sweep: Any, profile: str, jobs: int,
             stages: dict[str, float] | None = None) -> dict[str, Any]:
    """``timings.json`` of a run: wall seconds of its phases (sweep, with the claims judged and drawn in its pool;
    judging the others, with the figures the workers draw; records and reports), the main process's CPU seconds,
    and per claim the CPU seconds its points took to compute (what its time budget counts), heaviest first."""
    now = time.perf_counter()
    per_claim = sorted(sweep.seconds.items(), key=lambda kv: -kv[1])
    return {"profile": profile, "jobs": jobs,
            "wall_seconds": {"sweep": round(clock["swept"] - clock["started"], 3),
                             "judge_and_draw": round(clock["judged"] - clock["swept"], 3),
                             "records_and_reports": round(now - clock["judged"], 3),
                             "total": round(now - clock["started"], 3)},
            "main_process_cpu_seconds": round(time.process_time() - clock["cpu"], 3),
            "points": {"computed": sweep.computed, "cached": sweep.cached},
            "claims_judged_in_sweep": len(sweep.followed),
            "report_stages_wall_seconds": {k: round(v, 3) for k, v in (stages or {}).items()},
            "claim_compute_cpu_seconds": {k: round(v, 3) for k, v in per_claim},
            "claim_compute_cpu_seconds_total": round(sum(v for _, v in per_claim), 3)}


#: digest of the results the reports in an output directory were drawn from (see :func:`_report_current`)
_REPORT_DIGEST = ".report-digest.json"
#: verdict fields that change with every run but not with its results
_VOLATILE = ("run_at",)


def _report_digest(records: pd.DataFrame, verdicts: Sequence[dict[str, Any]], errata: Sequence[dict[str, Any]],
                   write_pdf: bool) -> str:
    """SHA-256 of what the reports show: every record (values and columns), the verdicts without their run date,
    the errata, the fedrates version and whether a PDF is written."""
    from fedrates import __version__

    h = hashlib.sha256()
    h.update(json.dumps([list(map(str, records.columns)), [str(t) for t in records.dtypes]]).encode())
    try:
        h.update(pd.util.hash_pandas_object(records, index=False).to_numpy().tobytes())
    except TypeError:  # a column of unhashable values: no digest, the reports are drawn
        return ""
    h.update(json.dumps([{k: v for k, v in d.items() if k not in _VOLATILE} for d in verdicts], sort_keys=True,
                        default=str).encode())
    h.update(json.dumps(list(errata), sort_keys=True, default=str).encode())
    h.update(json.dumps([__version__, bool(write_pdf)]).encode())
    return h.hexdigest()


def _report_current(out: Path, digest: str, write_pdf: bool) -> bool:
    """True when ``out`` holds the reports of exactly these results (a resume that changed nothing): they are not
    drawn again, and keep the date of the run that produced them."""
    try:
        stored = json.loads((out / _REPORT_DIGEST).read_text())
    except (OSError, ValueError):
        return False
    files = ["report.html"] + (["report.pdf"] if write_pdf else [])
    same = bool(digest) and isinstance(stored, dict) and stored.get("digest") == digest
    return same and outputs.reports_intact(out, files)  # a damaged (e.g. truncated) report is drawn again


class _Progress:
    """A rich progress bar on stderr (silent when disabled, and when stderr is not a terminal: a bar drawn into a
    file or a pipe is only noise there, and a refusal must stay the one line on stderr)."""

    def __init__(self, enabled: bool) -> None:
        self._bar = None
        self._task = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("sweep points", total=None)

    def update(self, done: int, total: int, claim_id: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, description=claim_id)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
