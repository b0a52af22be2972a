"""Helpers shared by the sub-commands: ``--set key=value`` parsing for problem parameters, JSON output, and the
up-front validation of every argument (types, ranges, sizes against the available memory, writable outputs) so
that bad input is refused in one line before any work starts."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError
from fedrates.verify.jsonable import to_jsonable

#: longest accepted KEY=VALUE item
MAX_ITEM = 200


def shown(text: object, limit: int = 60) -> str:
    """``text`` safe to echo in a one-line message: control characters (newlines, ANSI escapes, ...) are shown
    escaped (``\\n``, ``\\x1b``) and long text is shortened."""
    safe = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return safe if len(safe) <= limit else safe[:limit - 3] + "..."


def parse_assignments(items: Sequence[str] | None, option: str = "--set") -> dict[str, Any]:
    """Parse ``key=value`` items into numbers (int when integral text, else float), ``true/false`` or strings.

    Values are converted with ``int``/``float`` only, never evaluated.  A key given twice is refused (no silent
    last-wins).
    """
    out: dict[str, Any] = {}
    for item in items or ():
        if len(item) > MAX_ITEM:
            raise InputError(f"{option} item too long ({len(item)} characters; at most {MAX_ITEM})")
        if "=" not in item:
            raise InputError(f"{option} expects key=value, got '{shown(item)}'")
        key, _, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not key.isidentifier():
            raise InputError(f"{option} key '{shown(key)}' is not a valid parameter name")
        if key in out:
            raise InputError(f"{option} gives '{key}' twice; give each key once")
        out[key] = parse_scalar(text, f"{option} {key}")
    return out


def parse_scalar(text: str, option: str = "value") -> Any:
    """A ``key=value`` value by the rules of :mod:`fedrates.verify.numbers` (ASCII digits, finite, normal): a
    boolean, None, an int, a float, or the text itself when it is a word."""
    from fedrates.verify.numbers import parse_value

    return parse_value(option, text)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2, sort_keys=False) + "\n")


# ------------------------------------------------------------------------------------------ up-front validation

#: largest seed (records store seeds as int64)
MAX_SEED = 2**63 - 1
#: largest base seed of `verify` (its Monte-Carlo seeds are base * 100003 + i, which must stay below MAX_SEED)
MAX_BASE_SEED = 2**40
#: largest number of worker processes of `verify`
MAX_JOBS = 256
#: largest rounds / local steps / batch / record interval accepted by `run`
MAX_COUNT = 10**9
#: share of the available memory a command may plan to use
MEMORY_SHARE = 0.5


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in [low, high]; one-line InputError otherwise (:func:`fedrates.verify.numbers.parse_int`:
    ASCII digits only, booleans refused)."""
    from fedrates.verify.numbers import parse_int

    return parse_int(name, value, low, high)


def available_memory() -> int:
    """Bytes of memory available to a new allocation."""
    from fedrates.solvers.problems._params import available_memory as available

    return available()


def check_memory(needed: float, what: str, hint: str) -> None:
    """Refuse a plan that needs more than :data:`MEMORY_SHARE` of the available memory."""
    avail = available_memory()
    if needed > MEMORY_SHARE * avail:
        raise InputError(f"{what} needs about {_bytes(needed)} of memory, more than {MEMORY_SHARE:.0%} of the "
                         f"{_bytes(avail)} available; {hint}")


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def check_output_file(option: str, out: str, suffixes: Sequence[str]) -> Path:
    """A writable file destination: known suffix, not a directory, and a writable directory to put it in.  Missing
    parent directories are created when the file is written (as ``report --out`` and ``plot --out`` do); here the
    nearest existing ancestor must be a writable directory.  Nothing is created by the check."""
    if not out or "\0" in out:
        raise InputError(f"{option} '{shown(out)}' is not a file name")
    path = Path(out)
    if path.suffix.lower() not in suffixes:
        raise InputError(f"{option} '{shown(out)}' has an unknown format; expected a "
                         f"{' or '.join(suffixes)} file name")
    try:
        if path.is_dir():
            raise InputError(f"{option} '{shown(out)}' is a directory; expected a file name")
        parent = path.parent if str(path.parent) else Path(".")
        existing = parent
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise InputError(f"{option} '{shown(out)}': '{shown(existing)}' is not a directory")
        if path.exists() and not os.access(path, os.W_OK):
            raise InputError(f"{option} '{shown(out)}' is not writable")
        probe = existing / f".fedrates-write-test-{os.getpid()}"
        try:
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise InputError(f"{option} '{shown(out)}': directory '{shown(existing)}' is not writable "
                             f"({exc.strerror or exc})") from None
    except OSError as exc:  # a name too long, a component that is a file, ...
        raise InputError(f"{option} '{shown(out)}' cannot be written ({exc.strerror or exc})") from None
    return path


def seeds_of(seed: Any, seeds_text: str | None) -> list[int]:
    """The run seeds of ``--seed S`` / ``--seeds S1,S2,...``: distinct integers in 0..MAX_SEED."""
    if seeds_text is None:
        return [check_int("--seed", seed, 0, MAX_SEED)]
    parts = [p.strip() for p in seeds_text.split(",")]
    if not any(parts):
        raise InputError("--seeds is empty; expected e.g. --seeds 0,1,2")
    if any(not p for p in parts):
        raise InputError(f"--seeds '{shown(seeds_text)}' has an empty item; expected e.g. --seeds 0,1,2")
    if len(parts) > 10_000:
        raise InputError(f"--seeds lists {len(parts)} seeds; at most 10000")
    out = [check_int("--seeds item", p, 0, MAX_SEED) for p in parts]
    if len(set(out)) != len(out):
        raise InputError(f"--seeds '{shown(seeds_text)}' repeats a seed; expected distinct seeds")
    return out


def check_problem_size(family: str, params: dict[str, Any]) -> None:
    """The instance's memory against the available memory (also checked by every problem build)."""
    from fedrates.solvers import problems
    from fedrates.solvers.problems._params import check_footprint

    estimate = problems.FAMILIES[family].footprint if family in problems.FAMILIES else None
    check_footprint(family, params, estimate)


def validate_run(args: Any) -> list[int]:
    """Every argument of ``fedrates run`` checked before the problem is built or anything runs; returns the seeds.

    Checks: integer ranges (rounds, local steps, batch, participating, record interval, seeds), repeated --set /
    --hyper keys, the problem parameters (declared ranges and the instance's memory), the records' memory, and
    that ``--out`` is a writable .parquet/.csv file.  The checks that need no problem come first, so that their
    refusals do not even import numpy."""
    rounds = check_int("--rounds", args.rounds, 1, MAX_COUNT)
    record_every = check_int("--record-every", args.record_every, 1, MAX_COUNT)
    for option, value in (("local_steps (--local-steps)", args.local_steps), ("batch (--batch)", args.batch),
                          ("--participating", args.participating)):
        if value is not None:
            check_int(option, value, 1, MAX_COUNT)
    seeds = seeds_of(args.seed, args.seeds)
    overrides = parse_assignments(args.assignments, "--set")
    hyper = parse_assignments(args.hyper, "--hyper")
    from fedrates.verify.numbers import check_magnitude

    for key, value in hyper.items():
        if key not in ("local_steps", "batch"):
            check_magnitude(f"--hyper {key}", value)
    for key in ("local_steps", "batch"):
        value = hyper.get(key)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            check_int(f"--hyper {key}", value, 1, MAX_COUNT)
    if args.out:
        check_output_file("--out", args.out, (".parquet", ".csv"))
    from fedrates.solvers import problems
    from fedrates.solvers.problems._params import resolve

    name = args.problem or (problems.preset_family(args.preset) if args.preset else None)
    if name is not None:
        params = resolve(problems.family(name), args.preset, overrides)
        check_problem_size(name, params)
        clients = params.get("clients")
        if args.participating is not None and clients is not None and args.participating > clients:
            raise InputError(f"--participating {args.participating} is out of range; expected an integer in "
                             f"1..{clients} (the problem's clients)")
        given = hyper.get("local_steps")
        local = args.local_steps or (given if isinstance(given, int) and not isinstance(given, bool) else 1)
        dim = params.get("dim") or params.get("rows", 1) * params.get("cols", 1)
        check_memory(8.0 * len(seeds) * (clients or 1) * dim * max(1, int(local)) * 2,
                     f"a round of {int(local)} local steps on {len(seeds)} seed(s)", "use fewer local steps or seeds")
        announce_work(rounds * (clients or 1) * max(1, int(local)) * len(seeds), dim)
    rows = (rounds // record_every + 2) * len(seeds)
    check_memory(rows * 400.0, f"{rows} records ({rounds} rounds, every {record_every}, {len(seeds)} seed(s))",
                 "record less often (--record-every) or run fewer rounds")
    return seeds


#: client steps per second assumed by the estimate of :func:`announce_work` (the engine does 3-4 million at dimension
#: 64 on one core; README "Speed and scale"), and the work above which the estimate is printed
STEPS_PER_SECOND = 3e6
ANNOUNCE_SECONDS = 30.0


#: seconds to build one client's generator (the vectorised hash and numpy's objects: 5.8 µs measured) and to draw
#: one client step's random numbers from it (0.8 µs at d = 10), what :func:`announce_streams` adds
STREAM_BUILD_SECONDS = 6e-6
STREAM_DRAW_SECONDS = 1e-6


def work_seconds(client_steps: float, dim: int) -> float:
    """The rough time of ``client_steps`` at :data:`STEPS_PER_SECOND`, scaled by dimension / 64."""
    return client_steps / STEPS_PER_SECOND * max(1.0, dim / 64)


def _took(seconds: float) -> str:
    return f"{seconds / 3600:.2g} h" if seconds >= 3600 else f"{seconds / 60:.2g} min"


def announce_work(client_steps: float, dim: int) -> None:
    """A one-line note on stderr when a run will take long: its client steps (rounds × clients × local steps ×
    seeds) and a rough time at :data:`STEPS_PER_SECOND` scaled by dimension / 64 (an order of magnitude, not a
    promise)."""
    seconds = work_seconds(client_steps, dim)
    if seconds < ANNOUNCE_SECONDS:
        return
    sys.stderr.write(f"fedrates: note: this run simulates {client_steps:.3g} client steps of dimension {dim} "
                     f"(rounds x clients x local steps x seeds): roughly {_took(seconds)}; Ctrl-C stops it\n")


def announce_streams(streams: float, client_steps: float, dim: int) -> None:
    """The note of :func:`announce_work`, given once the problem is built, for a run that draws its gradients
    (minibatches or noise σ > 0) and is long because of its per-client random streams: ``streams`` generators
    (seeds × clients taking part) built at :data:`STREAM_BUILD_SECONDS` each, ``client_steps`` draws at
    :data:`STREAM_DRAW_SECONDS` (4 seeds × 10⁶ clients, 2 rounds: about 30 s of the 57 s such a run takes).
    Nothing when the steps alone were announced already, or when the whole stays short."""
    base = work_seconds(client_steps, dim)
    seconds = base + streams * STREAM_BUILD_SECONDS + client_steps * STREAM_DRAW_SECONDS
    if base >= ANNOUNCE_SECONDS or seconds < ANNOUNCE_SECONDS:
        return
    sys.stderr.write(f"fedrates: note: this run draws its gradients from {streams:.3g} per-client random streams "
                     f"(seeds x clients, one generator each) over {client_steps:.3g} client steps: roughly "
                     f"{_took(seconds)}; Ctrl-C stops it\n")


def validate_reference(args: Any) -> dict[str, Any]:
    """The --set parameters of ``fedrates reference``, checked (ranges, memory, --tol) before the problem is
    built."""
    params = parse_assignments(args.assignments, "--set")
    tol = getattr(args, "tol", None)
    if tol is not None and not (math.isfinite(tol) and 0 < tol < 1):
        raise InputError(f"--tol {tol!r} is out of range; expected a number in (0, 1), e.g. 1e-11")
    from fedrates.solvers import problems
    from fedrates.solvers.problems._params import resolve

    check_problem_size(args.problem, resolve(problems.family(args.problem), args.preset, params))
    return params


def validate_verify(args: Any) -> tuple[int | None, int]:
    """(jobs, base seed) of ``fedrates verify``, checked before any claim is loaded."""
    jobs = check_int("--jobs", args.jobs, 1, MAX_JOBS) if args.jobs is not None else None
    base_seed = check_int("--seed", args.seed, 0, MAX_BASE_SEED)
    if args.only is not None and (not args.only.strip() or len(args.only) > MAX_ITEM):
        raise InputError(f"--only '{shown(args.only)}' is not a claim pattern")
    return jobs, base_seed


#: profiles of ``selfcheck`` (its help names these two)
SELFCHECK_PROFILES = ("quick", "standard")


def validate_selfcheck(args: Any) -> tuple[int, int]:
    """(jobs, base seed) of ``fedrates selfcheck``, checked like ``verify``'s: each message names only the wrong
    option."""
    if args.profile not in SELFCHECK_PROFILES:
        raise InputError(f"unknown profile '{shown(args.profile)}'; expected one of: {', '.join(SELFCHECK_PROFILES)}")
    jobs = check_int("--jobs", args.jobs, 1, MAX_JOBS) if args.jobs is not None else max(1, os.cpu_count() or 1)
    base_seed = check_int("--seed", args.seed, 0, MAX_BASE_SEED)
    if args.only is not None and (not args.only.strip() or len(args.only) > MAX_ITEM):
        raise InputError(f"--only '{shown(args.only)}' is not a variant pattern")
    return jobs, base_seed


def save_fallback(write: Any, out: str, exc: OSError) -> str:
    """Keep results whose destination failed: write them into the user cache (else the temporary directory)
    with ``write(path)`` and return a one-line message saying where; never raises OSError."""
    import tempfile
    import time

    from fedrates.solvers._cache import user_cache_root

    name = f"{Path(out).stem or 'records'}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}{Path(out).suffix}"
    for root in (user_cache_root() / "fedrates" / "unsaved", Path(tempfile.gettempdir()) / "fedrates-unsaved"):
        try:
            root.mkdir(parents=True, exist_ok=True)
            target = root / name
            write(target)
            return (f"could not write '{shown(out)}' ({exc.strerror or exc}); the results were kept in "
                    f"'{target}'")
        except OSError:
            continue
    return f"could not write '{shown(out)}' ({exc.strerror or exc}) nor a fallback copy; results are lost"


#: verdict fields and the JSON types they may hold (absent fields are allowed; the report shows what it has)
VERDICT_FIELDS: dict[str, tuple[type, ...]] = {
    "claim": (str,), "verdict": (str,), "title": (str,), "theorem": (str,), "statement": (str,),
    "algorithm": (str,), "problem": (str,), "regime": (str,), "why": (str,), "message": (str,), "x": (str,),
    "metric": (str,), "seeds": (list,), "conditions": (list,), "constants": (dict,), "fit": (dict, type(None)),
    "measured": (str, int, float, type(None)), "predicted": (str, int, float, type(None)),
    "tolerance": (str, int, float, type(None)), "calibrated_constant": (int, float, type(None)),
}
VERDICTS = ("pass", "fail", "erratum", "informational", "conditions-not-met", "inconclusive", "error")


def validate_verdicts(items: list[dict[str, Any]], path: Any) -> list[dict[str, Any]]:
    """Check a verdicts.json list before rendering: each entry names its claim and a known verdict, and every known
    field has the JSON type the report expects (``seeds`` a list of integers, ``conditions`` a list of objects,
    ``constants`` an object, ...); InputError naming the entry and the field otherwise."""
    for i, v in enumerate(items):
        where = f"'{shown(path)}' entry {i}" + (f" ({shown(v['claim'])})" if isinstance(v.get("claim"), str) else "")
        for key in ("claim", "verdict"):
            if key not in v:
                raise InputError(f"{where} has no '{key}' field")
        for key, types in VERDICT_FIELDS.items():
            if key in v and (not isinstance(v[key], types) or isinstance(v[key], bool)):
                expected = " or ".join("null" if t is type(None) else {"str": "a string", "list": "a list",
                                       "dict": "an object", "int": "a number", "float": "a number"}[t.__name__]
                                       for t in types)
                raise InputError(f"{where}: field '{key}' is {shown(json.dumps(v[key]))}; expected {expected}")
        if v["verdict"] not in VERDICTS:
            raise InputError(f"{where}: verdict '{shown(v['verdict'])}' is not one of {', '.join(VERDICTS)}")
        seeds = v.get("seeds", [])
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            raise InputError(f"{where}: field 'seeds' must list integers")
        if not all(isinstance(c, dict) for c in v.get("conditions", [])):
            raise InputError(f"{where}: field 'conditions' must list objects")
    return items
