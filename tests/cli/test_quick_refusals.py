"""Refusals decided before sympy is imported give exactly the full path's answer.

``fedrates explore`` decides arithmetic ``--set`` values, ``--range`` ends and ``--target`` from the cached symbol
table and :mod:`fedrates.bounds.quickparse` when the outcome is certain, else falls through to the sympy parser.
Here every explore case of the bad-input table and generated arithmetic values run through both paths (with the
table: quick checks first; without it: the full checks only) and must give the same exit status and the same
stderr, byte for byte; the quick parser alone is compared with :func:`fedrates.bounds.parse.parse_number` on a few
thousand generated expressions; and the covered refusals are checked not to import sympy or numpy.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_processes import run_commands
from _scripts import load_script

from fedrates.bounds.parse import parse_number
from fedrates.bounds.quickparse import Undecided, quick_number
from fedrates.solvers.errors import InputError
from fedrates.verify.cli import main
from fedrates.verify.commands import _theorem_index

#: numbers and names at the parser's limits: 0 as Integer and as Float, underflow, exponents and exp arguments
#: just inside and outside their limits, a double at the edge of its range, names that are not numbers
ATOMS = ["0", "1", "2", "3", "7", "10", "0.5", "0.1", "2.5", "1e-3", "0.0", "1e308", "1e-320", "1e-400", "709",
         "710", "709.0", "999", "1000", "1001", "1e400", "pi", "x", "_a", "True", "'s'", "1j", "e", "mu", "sqrt",
         "None", "10**400", "1/3"]
NUMBERS = ["0", "1", "2", "3", "7", "10", "0.5", "0.1", "2.5", "1e-3", "0.0", "1e-5", "100", "1e10", "pi", "1e-300",
           "1e300", "1/10**320", "999.9999999", "709"]  # and values whose roots or products leave double range
OPS = ["+", "-", "*", "/", "**"]


def _expression(rng: random.Random, atoms: list[str], depth: int = 0) -> str:
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice(atoms)
    if r < 0.7:
        op = rng.choice([*OPS, *OPS, "%", "//"]) if atoms is ATOMS else rng.choice(OPS)
        left, right = _expression(rng, atoms, depth + 1), _expression(rng, atoms, depth + 1)
        return f"({left}){op}({right})" if rng.random() < 0.5 else f"{left}{op}{right}"
    if r < 0.8:
        return "-" + _expression(rng, atoms, depth + 1)
    name = rng.choice(["sqrt", "log", "exp", "exp", "log", "abs", "os.system"] if atoms is ATOMS else
                      ["sqrt", "log", "exp"])
    args = [_expression(rng, atoms, depth + 1) for _ in range(rng.choice([1, 1, 1, 2]))]
    return f"{name}({', '.join(args)})"


def _outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("atoms", [ATOMS, NUMBERS], ids=["any", "numbers"])
@pytest.mark.parametrize("seed", [0, 1])
def test_quick_parser_agrees_with_the_sympy_parser(atoms, seed):
    rng = random.Random(seed)
    decided = 0
    for _ in range(1500):
        text = _expression(rng, atoms)
        names = rng.choice([(), ("mu", "x")])
        try:
            quick = _outcome(quick_number, text, names)
        except Undecided:
            continue
        decided += 1
        full = _outcome(parse_number, text, {}, names)
        if quick[0] == "error" or full[0] == "error":
            assert quick == full, text
            continue
        value, (lo, hi) = full[1], quick[1].floats()
        assert lo <= value <= hi, text
        assert quick[1].positive() in (None, value > 0), text
        assert quick[1].nonnegative() in (None, value >= 0), text
        try:
            assert quick[1].shown() == f"{value:g}", text
        except Undecided:
            pass
    assert decided >= 1000  # the quick path decides most of them (else this test would compare nothing)


@pytest.mark.parametrize("text,message", [
    ("1/0", "cannot use expression '1/0': division by zero"),
    ("0**-1", "cannot use expression '0**-1': division by zero"),
    ("2**1001", "cannot use expression '2**1001': exponent 1001 is too large (|exponent| <= 1000)"),
    ("2**(-3001/2)", "cannot use expression '2**(-3001/2)': exponent -3001/2 is too large (|exponent| <= 1000)"),
    ("10**999*10**999", None),
    ("1e308*10", "expression '1e308*10' is not a finite real number"),
    ("exp(710)", "cannot use expression 'exp(710)': exp argument above 709 (the result would overflow)"),
    ("__import__('os')", "cannot use expression '__import__('os')': function '__import__' is not allowed (only "
                         "sqrt, log, exp)"),
    ("x.y", "cannot use expression 'x.y': attribute access is not allowed (numbers, + - * / **, parentheses, "
            "symbols and sqrt/log/exp only)"),
])
def test_quick_parser_messages(text, message):
    quick = _outcome(quick_number, text)
    assert quick == _outcome(parse_number, text)
    if message is not None:
        assert quick == ("error", message)


@pytest.mark.parametrize("text,message", [
    ("1.5/0.0", "cannot use expression '1.5/0.0': division by zero"),  # a Float 0 is not == 0 in sympy
    ("0.0**-1", "cannot use expression '0.0**-1': division by zero"),
    ("2**sqrt(-1)", "cannot use expression '2**sqrt(-1)': not a finite real number"),
])
def test_sympy_parser_refuses_float_zero_and_complex_exponents_in_one_line(text, message):
    assert _outcome(parse_number, text) == ("error", message)


@pytest.mark.parametrize("text", ["1/(0.5-0.5)", "exp(1)", "10**1000", "exp(709)", "2**x", "(-8)**(1/3)"])
def test_quick_parser_leaves_uncertain_values_to_sympy(text):
    with pytest.raises(Undecided):
        quick_number(text, ("x",))


def test_quick_parser_leaves_uncertain_signs_to_sympy():
    assert quick_number("pi-pi").positive() is None  # exactly 0 for sympy; an interval around 0 here
    # 5.55e-17 after rounding, far below the operands' rounding: not decided here either
    assert quick_number("0.1+0.2-0.3").positive() is None
    assert quick_number("0.3-0.1").positive() is True


# ---- the CLI: both paths

def _bad_input_table():
    return load_script(Path(__file__).with_name("test_bad_input.py"), "_bad_input_table")


@pytest.fixture(scope="module")
def index():
    return _theorem_index._build()["theorems"]


def _both(argv, index, monkeypatch, capsys):
    """(exit status, stderr) with the symbol table (quick checks, then the full ones) and without it (full)."""
    results = []
    for table in (index, None):
        monkeypatch.setattr(_theorem_index, "theorem_index", lambda build=True, table=table: table)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        results.append((code, capsys.readouterr().err))
    return results


EXPLORE_CASES = [c for c in _bad_input_table().CASES if c[1][0] == "explore"]


@pytest.mark.parametrize("argv", [c[1] for c in EXPLORE_CASES], ids=[c[0] for c in EXPLORE_CASES])
def test_bad_input_table_same_answer_with_and_without_quick_checks(argv, index, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    quick, full = _both(argv, index, monkeypatch, capsys)
    assert quick == full
    assert quick[0] == 2 and quick[1].count("\n") == 1


def _generated_argvs():
    """Arithmetic in every position the quick checks read; each command is refused in the end (missing values),
    so the full path never starts a numeric analysis."""
    rng = random.Random(8)
    argvs = []
    for _ in range(40):
        e = _expression(rng, NUMBERS if rng.random() < 0.6 else ATOMS)
        argvs += [
            ["explore", "bao.thm2.1", "--set", f"mu={e}", "--solve", "T", "--target", "1e-3"],
            ["explore", "buttaci.thm1", "--set", "L=1", f"t={e}", "--dominant", "E"],
            ["explore", "bao.thm2.1", "--set", "mu=1", "--dominant", "T", "--range", e, "1e3"],
            ["explore", "bao.thm2.1", "--set", "mu=1", "--solve", "T", "--target", e],
        ]
    return argvs


def test_generated_arithmetic_same_answer_with_and_without_quick_checks(index, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    for argv in _generated_argvs():
        quick, full = _both(argv, index, monkeypatch, capsys)
        assert quick == full, argv
        assert quick[0] == 2, argv


# ---- no sympy on the covered refusals


#: refusals of the bad-input table decided by the quick checks once the symbol table exists
QUICK = ["explore-value-div-zero", "explore-index-negative-expression", "explore-indicator-negative",
         "explore-range-expression", "explore-target-exp-tower", "explore-target-overflow", "explore-target-code",
         "explore-value-zero-not-allowed", "explore-value-repeated", "explore-unknown-symbol",
         "explore-solve-unknown", "explore-solve-missing-values", "explore-dominant-missing-values"]


def _run(argvs, cache):
    return run_commands(argvs, cache)[0]


def test_quick_refusals_import_neither_sympy_nor_numpy(tmp_path):
    cases = {c[0]: c[1] for c in _bad_input_table().CASES}
    assert set(QUICK) <= set(cases)
    cache = tmp_path / "cache"
    (ok,) = _run([["explore", "bao.thm2.1", "--exponent", "T"]], cache)  # stores the symbol table
    assert ok[0] == 0 and "sympy" in ok[1]
    results = _run([cases[i] for i in QUICK] + [["explore", "bao.thm2.1", "--set", "mu=pi-pi"]], cache)
    for case_id, (code, loaded) in zip(QUICK, results[:-1], strict=True):
        assert code == 2, case_id
        assert loaded == [], f"{case_id} imported {loaded} before refusing"
    # a value the quick parser cannot decide (pi - pi is exactly 0 for sympy) goes to the full parser
    assert results[-1][0] == 2 and "sympy" in results[-1][1]


# ---- verify --only from the stored claim ids

@pytest.mark.parametrize("pattern", ["zz-no-such-claim", "bao.thm2.1/rate-Z", "*.nothing", "das.eq8/exact-no-clipx"])
def test_only_refused_from_stored_ids_with_the_registry_message(pattern, tmp_path, monkeypatch):
    from fedrates.verify import claim_index, claims

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    assert claim_index.stored_ids() is None
    claim_index.check_only(pattern)  # nothing stored: no decision here
    with pytest.raises(InputError) as full:
        claims.select(pattern)
    claim_index.store_ids(claims.ids())
    assert claim_index.stored_ids() == claims.ids()
    with pytest.raises(InputError) as quick:
        claim_index.check_only(pattern)
    assert str(quick.value) == str(full.value)


def test_only_matching_a_stored_id_goes_on_to_the_registry(tmp_path, monkeypatch):
    from fedrates.verify import claim_index, claims

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    claim_index.store_ids(claims.ids())
    for pattern in ["bao.*", claims.ids()[0], "rate"]:
        claim_index.check_only(pattern)
        assert claims.select(pattern)


def test_stored_ids_are_keyed_by_the_code(tmp_path, monkeypatch):
    from fedrates.verify import claim_index

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    claim_index.store_ids(["a/1"])
    assert claim_index.stored_ids() == ["a/1"]
    monkeypatch.setattr(claim_index, "_code_digest", lambda: "another version of the code")
    assert claim_index.stored_ids() is None


def test_verify_only_refusal_imports_no_claim_module(tmp_path):
    cache = tmp_path / "cache"
    (listed,) = _run([["list", "claims"]], cache)  # stores the ids
    assert listed[0] == 0 and "numpy" in listed[1]
    argv = ["verify", "--only", "zz-no-such-claim", "--out", str(tmp_path / "v")]
    (refused,) = _run([argv], cache)
    assert refused == [2, []]
    assert not (tmp_path / "v").exists()


# ---- the program ends right after a refusal, with its output flushed

_ENTRY = r"""
import sys, threading
from fedrates.verify.cli import main
sys.stdout.write("written before the refusal")  # buffered (stdout is a pipe): must still arrive
if sys.argv[1] == "thread":
    threading.Thread(target=threading.Event().wait, daemon=True).start()  # alive until the process ends
sys.argv = ["fedrates", "explore", "bao.thm2.1", "--set", "mu=1/0"]
code = main()
sys.stdout.write(" | returned")
sys.exit(code)
"""


@pytest.mark.parametrize("mode", ["alone", "thread"])
def test_refusal_ends_the_program_after_flushing(mode, tmp_path):
    env = {**os.environ, "FEDRATES_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", _ENTRY, mode], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2
    assert proc.stderr == "fedrates: error: cannot use expression '1/0': division by zero\n"
    # alone: the process ends inside main; with another thread running, main returns as usual
    expected = "written before the refusal" + (" | returned" if mode == "thread" else "")
    assert proc.stdout == expected
