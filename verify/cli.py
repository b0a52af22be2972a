"""The ``fedrates`` command line.

Each sub-command lives in its own module under :mod:`verify.commands` exposing ``register(subparsers)``; this module
only assembles them and turns user errors into one line on stderr with exit status 2 (no traceback).

Exit statuses: 0 success, 1 failed verification, 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import warnings
from collections.abc import Sequence

from fedrates.solvers.errors import InputError

#: sub-command modules, in the order they appear in ``fedrates --help``
COMMAND_MODULES = (
    "fedrates.verify.commands.listing",
    "fedrates.verify.commands.reference",
    "fedrates.verify.commands.constants",
    "fedrates.verify.commands.run",
    "fedrates.verify.commands.explore",
    "fedrates.verify.commands.verify",
    "fedrates.verify.commands.report",
    "fedrates.verify.commands.plot",
    "fedrates.verify.commands.falsify",
    "fedrates.verify.commands.selfcheck",
    "fedrates.verify.commands.new",
)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"fedrates: error: {_one_line(message)}\n")
        raise SystemExit(2)


_ROLE = re.compile(r":(?:func|mod|class|data|meth|attr|obj):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain_help(text: str | None) -> str | None:
    """Help text without reST markup: ``:mod:`x``` → x, ````x```` → x."""
    if not text:
        return text
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text))


def _one_line(message: object) -> str:
    """A message as one safe line: newlines, ANSI escapes and other control characters echoed from user input
    are shown escaped (``\\n``, ``\\x1b``), never interpreted by the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


def build_parser() -> argparse.ArgumentParser:
    from fedrates import __version__

    parser = _Parser(prog="fedrates", description="Check the convergence theory of federated optimization against "
                                                  "certified numerical reality.")
    parser.add_argument("--version", action="version", version=f"fedrates {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command not built yet
            if exc.name == module_name:
                continue
            raise
        module.register(sub)
    for command in sub.choices.values():  # module docstrings double as descriptions: show them as plain text
        command.description = plain_help(command.description)
        for action in command._actions:
            action.help = plain_help(action.help)
    return parser


def _end_now(code: int) -> None:
    """End the process at once after a refusal or a finished ``run``: flush the standard streams and skip the
    interpreter's teardown (freeing sympy's and numpy's objects takes about 0.1 s, a fifth of a refusal's time
    budget; freeing the 4·10⁶ client generators of a run of 4 seeds × 10⁶ clients with gradient noise, 7 s).  Only
    when nothing teardown would finish is running: no other thread, no child process (a refusal writes no file, a
    run has written and closed its ``--out`` file; ``with`` blocks have closed theirs)."""
    import os
    import threading

    if threading.active_count() != 1:
        return
    if "multiprocessing" in sys.modules and sys.modules["multiprocessing"].active_children():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            return
    os._exit(code)


def _numeric_failure(exc: BaseException) -> str:
    """One line for an arithmetic failure (overflow, division by zero) or a recursion too deep on given values:
    what failed and where, so that the input can be changed (or the failure reported)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" in {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    what = "nested too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"
    return (f"the computation failed on these inputs ({what}{where}); use values of a more moderate size "
            f"(e.g. radii and hyperparameters within 1e-100..1e100)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        with warnings.catch_warnings():  # numeric edge cases are reported as values, never as warnings on stderr
            warnings.simplefilter("ignore", RuntimeWarning)
            code = int(args.handler(args) or 0)
        if argv is None and args.command == "run":  # the program itself: a run may hold 10⁶ client generators
            _end_now(code)
        return code
    except InputError as exc:
        sys.stderr.write(f"fedrates: error: {_one_line(exc)}\n")
        if argv is None:  # the program itself, not a caller in Python
            _end_now(2)
        return 2
    except (ArithmeticError, RecursionError) as exc:  # values the up-front checks let through: still one line
        sys.stderr.write(f"fedrates: error: {_one_line(_numeric_failure(exc))}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("fedrates: interrupted; finished work was kept\n")
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path the system refuses (name too long, a file where a folder is expected, ...)
        from fedrates.verify.commands._common import shown

        where = f" '{shown(exc.filename)}'" if exc.filename else ""
        sys.stderr.write(f"fedrates: error: {_one_line(exc.strerror or type(exc).__name__)}:{where}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
