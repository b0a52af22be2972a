"""Papers as plugins: the unit with which fedrates is extended.

A paper declares what it contributes with one :class:`Paper` object and makes it known through the entry-point
group ``fedrates.papers`` of its distribution::

    # pyproject.toml of the package "mypaper"
    [project.entry-points."fedrates.papers"]
    mypaper = "mypaper:PAPER"

    # mypaper/__init__.py
    from fedrates import Paper
    PAPER = Paper(id="mypaper", authors="A. Author, B. Author", title="A Theorem on Local SGD",
                  theorems=("mypaper.theory",), algorithms=("mypaper.algorithm",), claims=("mypaper.claims",),
                  variants=("mypaper.variants",))

Every field but ``id``, ``authors`` and ``title`` names *modules*, imported only when a command needs them (so
``fedrates list claims`` stays fast however many papers are installed):

* ``theorems`` — modules defining ``THEOREMS``: a tuple of :class:`fedrates.Theorem`, ids ``<paper>.<label>``;
* ``algorithms`` — modules whose import registers algorithms (classes decorated with :func:`fedrates.register`);
* ``problems`` — modules defining ``FAMILIES``: a tuple of problem families (:class:`fedrates.Family`);
* ``claims`` — modules defining ``CLAIMS``: a tuple of :class:`fedrates.Claim`, ids ``<paper>.<...>``;
* ``variants`` — modules defining ``VARIANTS``: a tuple of :class:`fedrates.BrokenVariant`;
* ``falsify`` — modules defining ``TARGETS``: a tuple of :class:`fedrates.verify.falsify.Target` for
  ``fedrates falsify``;
* ``figures`` — modules defining ``FIGURES``: ``{claim id: drawing}``, a figure laid out as in the paper, drawn in
  the reports beside the claim's own figure; a drawing is a function ``(records, verdict) -> matplotlib Figure`` or
  the text ``"module:function"`` naming one (imported only when the report draws it).

The five papers of fedrates are registered the same way (``fedrates.verify.claims.<paper>:PAPER``). A plugin that
cannot be loaded — its entry point or one of its modules fails to import, its id is taken, a module lacks the name
it must define, a claim names an algorithm nobody registered — is reported in one line naming the plugin and the
problem (:func:`problems_found`), and left out; every other paper keeps working.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

__all__ = ["ENTRY_POINT_GROUP", "Paper", "PluginError", "get", "ids", "modules", "papers", "problems_found",
           "report_problem", "reset"]

#: the entry-point group through which papers are discovered
ENTRY_POINT_GROUP = "fedrates.papers"

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_KINDS = ("theorems", "algorithms", "problems", "claims", "variants", "falsify", "figures")
#: the name each kind of module must define (algorithm modules register on import and define nothing)
_EXPORTS = {"theorems": "THEOREMS", "problems": "FAMILIES", "claims": "CLAIMS", "variants": "VARIANTS",
            "falsify": "TARGETS", "figures": "FIGURES"}


class PluginError(ValueError):
    """A paper declaration that cannot be used (raised when a :class:`Paper` is built with bad fields)."""


@dataclass(frozen=True)
class Paper:
    """One paper: its citation and the modules that hold its theorems, algorithms, problems, claims and variants.

    Attributes:
        id: lower-case identifier (``[a-z][a-z0-9_]*``); every theorem and claim id of the paper starts with
            ``<id>.``.
        authors: the authors as cited (``"Bao, Crawshaw, Luo, Liu"``).
        title: the title, with venue and year when published.
        theorems, algorithms, problems, claims, variants, falsify, figures: dotted module names (see the module
            docstring for what each must define).
        package: resolves relative module names (``".claims"``); usually the plugin's own package.
        subjects: names that claims may give as ``Claim.algorithm`` although no algorithm of that name is
            registered: claims about formulas, an oracle or the reference solver rather than an algorithm.
        url: where the paper can be read (optional).
    """

    id: str
    authors: str
    title: str
    theorems: tuple[str, ...] = ()
    algorithms: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    falsify: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    url: str = ""
    #: the package against which module names starting with ``.`` are resolved (``".claims"`` → ``package.claims``)
    package: str = ""
    #: where the paper came from (``"mypaper = mypaper:PAPER"``); set by discovery
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise PluginError(f"paper id {self.id!r} is not a lower-case identifier ([a-z][a-z0-9_]*)")
        for name in ("authors", "title"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise PluginError(f"paper {self.id}: {name} must be a non-empty string")
        for kind in (*_KINDS, "subjects"):
            value = getattr(self, kind)
            if isinstance(value, str):
                value = (value,)
            if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) and v for v in value):
                raise PluginError(f"paper {self.id}: {kind} must be a tuple of module names, got {value!r}")
            if kind != "subjects" and any(v.startswith(".") for v in value) and not self.package:
                raise PluginError(f"paper {self.id}: relative module names in {kind} need package=")
            object.__setattr__(self, kind, tuple(value))

    @property
    def citation(self) -> str:
        """``Authors, “Title”``."""
        return f"{self.authors}, “{self.title}”"


# ---- discovery ---------------------------------------------------------------------------------------------------
_PROBLEMS: list[str] = []


def report_problem(plugin: str, problem: str) -> None:
    """Record and print (once, on stderr) one line about a plugin that is left out."""
    line = f"fedrates: paper plugin {plugin}: {problem}; left out"
    line = " ".join(line.split())
    if line not in _PROBLEMS:
        _PROBLEMS.append(line)
        sys.stderr.write(line + "\n")


def problems_found() -> list[str]:
    """The one-line reports of plugins (or parts of them) left out so far in this process."""
    return list(_PROBLEMS)


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    found = list(entry_points(group=ENTRY_POINT_GROUP))
    # built-ins first, then the other distributions' papers, each group by name: a stable order
    def key(ep: Any) -> tuple[int, str]:
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        return (0 if dist == "fedrates" else 1, ep.name)

    seen: set[tuple[str, str]] = set()
    unique = []
    for ep in sorted(found, key=key):  # an editable install can list the same entry point twice
        if (ep.name, ep.value) not in seen:
            seen.add((ep.name, ep.value))
            unique.append(ep)
    return unique


@cache
def papers() -> dict[str, Paper]:
    """Every installed paper by id, built-ins first; a plugin that cannot be loaded is reported and left out."""
    out: dict[str, Paper] = {}
    for ep in _entry_points():
        label = f"'{ep.name}' ({ep.value})"
        try:
            paper = ep.load()
        except Exception as exc:  # noqa: BLE001 - any failure of a third-party import is that plugin's problem
            report_problem(label, f"cannot be loaded: {type(exc).__name__}: {exc}")
            continue
        if not isinstance(paper, Paper):
            report_problem(label, f"is a {type(paper).__name__}, expected a fedrates.Paper")
            continue
        if paper.id in out:
            report_problem(label, f"paper id '{paper.id}' is already taken by {out[paper.id].origin}")
            continue
        object.__setattr__(paper, "origin", f"{ep.name} = {ep.value}")
        out[paper.id] = paper
    return out


def ids() -> list[str]:
    """The ids of the installed papers, built-ins first."""
    return list(papers())


def get(paper_id: str) -> Paper:
    """The installed paper with this id (unknown id: one line with the closest ids)."""
    table = papers()
    if paper_id not in table:
        from fedrates.solvers.errors import unknown_name

        raise unknown_name("paper", paper_id, table)
    return table[paper_id]


def modules(kind: str) -> Iterator[tuple[Paper, ModuleType]]:
    """``(paper, module)`` for every module of this kind of every installed paper, imported on demand.

    A module that fails to import, or lacks the name it must define, is reported (one line naming the paper and the
    module) and skipped; the paper's other modules and the other papers are still used.
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown module kind {kind!r}; expected one of {_KINDS}")
    for paper in papers().values():
        for name in getattr(paper, kind):
            module = _import(paper, kind, name)
            if module is not None:
                yield paper, module


def _import(paper: Paper, kind: str, name: str) -> ModuleType | None:
    try:
        module = importlib.import_module(name, paper.package or None)
    except Exception as exc:  # noqa: BLE001
        report_problem(f"'{paper.id}'", f"{kind} module {name} cannot be imported: {type(exc).__name__}: {exc}")
        return None
    export = _EXPORTS.get(kind)
    if export is not None and not hasattr(module, export):
        report_problem(f"'{paper.id}'", f"{kind} module {name} defines no {export}")
        return None
    return module


def exported(kind: str) -> Iterator[tuple[Paper, Any]]:
    """``(paper, item)`` for every item of the tuples that the modules of this kind export, in declaration order."""
    export = _EXPORTS[kind]
    for paper, module in modules(kind):
        value = getattr(module, export)
        if kind == "figures":  # {claim id: drawing}: the pairs
            value = tuple(dict(value).items())
        for item in value.values() if isinstance(value, dict) else value:
            yield paper, item


def load_algorithms() -> None:
    """Import the algorithm modules of every paper (registering their algorithms); idempotent and cheap after the
    first call."""
    _load_algorithms()


@cache
def _load_algorithms() -> None:
    for _paper, _module in modules("algorithms"):
        pass


def reset() -> None:
    """Forget what discovery found, so that papers installed (or removed) since are seen by the next command run in
    this process: clears :func:`papers`, the one-line problem reports, and the registries built from the papers —
    claims (:mod:`fedrates.verify.claims`), theorems (:mod:`fedrates.bounds.catalog`), broken variants
    (:func:`fedrates.verify.variants.all_variants`), the papers' figures, the catalogue digest the report's MathML
    is remembered under, and the flags that say the papers'
    algorithm, problem and falsify modules were loaded.

    Algorithms, problem families and falsify targets already registered stay registered (a module imported once is
    not imported again); the modules of newly installed papers are imported on next use. Registries whose module was
    never imported are left alone (nothing heavy is imported here). Meant for tests that install a paper into
    ``sys.path`` and for long-lived sessions (a notebook after ``pip install -e``).
    """
    papers.cache_clear()
    _load_algorithms.cache_clear()
    _PROBLEMS.clear()
    importlib.invalidate_caches()  # a dist-info directory written since the last lookup is found
    for module, name in (("fedrates.verify.claims", "_load"), ("fedrates.bounds.catalog", "_load"),
                         ("fedrates.verify.variants", "all_variants"), ("fedrates.reports.html", "_catalogue_digest")):
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(getattr(loaded, name, None), "cache_clear"):
            getattr(loaded, name).cache_clear()
    for module in ("fedrates.solvers.problems", "fedrates.verify.falsify"):
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(loaded, "_PLUGINS_LOADED"):
            loaded._PLUGINS_LOADED = False
    figures = sys.modules.get("fedrates.reports.paper_figures")
    if figures is not None:
        figures.PAPER_FIGURES._table = None  # the papers' figures are gathered again on next use


def catalogue_digest() -> str:
    """SHA-256 of the code that defines the theorem catalogue (every module of fedrates.bounds, the citations, and
    the installed papers' entry points and modules, :func:`source_digest`): what caches of anything derived from
    the theorems are keyed by (listings, the report's MathML), so that any edit of a theorem is a miss. Reads the
    files, without building the catalogue (no sympy)."""
    import hashlib
    import importlib.util
    from pathlib import Path

    h = hashlib.sha256()
    bounds = Path(importlib.util.find_spec("fedrates.bounds").origin).parent
    for path in [*sorted(bounds.rglob("*.py")), Path(importlib.util.find_spec("fedrates.papers").origin)]:
        h.update(str(path.relative_to(bounds.parent)).encode())
        h.update(path.read_bytes())
    h.update(source_digest().encode())  # installed papers: their entry points and modules
    return h.hexdigest()


def source_digest() -> str:
    """SHA-256 of what the installed papers are: their entry points and the source files of every module they
    declare. Caches of listings (claim ids, theorem rows) are keyed by it with fedrates' own code, so that editing
    or installing a paper is a miss."""
    import hashlib
    import importlib.util

    h = hashlib.sha256()
    for ep in _entry_points():
        h.update(f"{ep.name}={ep.value}\n".encode())
    for paper in papers().values():
        for kind in _KINDS:
            for name in getattr(paper, kind):
                if name.startswith("fedrates.") or (name.startswith(".") and paper.package.startswith("fedrates.")):
                    continue  # fedrates' own code: hashed by the callers (finding it would import numpy, sympy)
                try:
                    spec = importlib.util.find_spec(name, paper.package or None)
                except (ImportError, ValueError):
                    spec = None
                origin = getattr(spec, "origin", None)
                h.update(f"{paper.id}:{kind}:{name}\n".encode())
                if origin and origin.endswith(".py"):
                    try:
                        with open(origin, "rb") as fh:
                            h.update(fh.read())
                    except OSError:
                        pass
    return h.hexdigest()
