"""The installed papers (built-in and plugins, :mod:`fedrates.plugins`), cited by authors and title."""

from __future__ import annotations

from typing import Any

__all__ = ["cite"]  # and PAPERS, computed on access


def __getattr__(name: str) -> Any:
    if name == "PAPERS":  # paper id → (authors, title), for every installed paper
        from fedrates import plugins

        return {p.id: (p.authors, p.title) for p in plugins.papers().values()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cite(paper_or_id: str) -> str:
    """``"Bao, Crawshaw, Luo, Liu — Fast Composite Optimization …"`` for a paper id or a theorem/claim id."""
    from fedrates import plugins

    key = paper_or_id.split(".", 1)[0].split("/", 1)[0]
    paper = plugins.papers().get(key)
    return paper.citation if paper is not None else paper_or_id
