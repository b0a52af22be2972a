"""Wide tables from long records: one row per seed (or any key), one column per value of a swept variable.

:func:`pivot_last` is ``frame.pivot_table(index=..., columns=..., values=..., aggfunc="last")`` without pandas'
group-by machinery: the claims build several hundred such tables per run (one per metric, point and claim), and
the group-by costs about 10 ms each where a factorisation and one scatter cost a few hundred µs. Same result, label
for label (tested against ``pivot_table``): rows and columns sorted; a (row, column) cell holds the *last non-NaN*
value of that pair in row order; rows with a missing key are dropped, and so are rows and columns with no value.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np

from fedrates._lazy import lazy_import

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_import("pandas")  # imported on first use: modules that only list claims stay free of it

__all__ = ["pivot_last"]


def pivot_last(frame: pd.DataFrame, index: Hashable, columns: Hashable, values: Hashable = "value") -> pd.DataFrame:
    """Table ``T`` with ``T.loc[i, c]`` = the last non-NaN ``values`` of the rows with ``index == i`` and
    ``columns == c`` (NaN where there is none); rows and columns sorted, those without any value left out."""
    keys = frame[index], frame[columns]
    value = frame[values].to_numpy(dtype=float, na_value=np.nan)
    keep = ~np.isnan(value) & keys[0].notna().to_numpy() & keys[1].notna().to_numpy()
    if not keep.all():
        keys = keys[0][keep], keys[1][keep]
        value = value[keep]
    row, row_labels = pd.factorize(keys[0], sort=True)
    col, col_labels = pd.factorize(keys[1], sort=True)
    cell = row.astype(np.int64) * len(col_labels) + col
    # the last occurrence of each cell: the first one in reversed row order
    cells, first_from_end = np.unique(cell[::-1], return_index=True)
    table = np.full(len(row_labels) * len(col_labels), np.nan)
    table[cells] = value[::-1][first_from_end]
    # not copied, so that ``to_numpy()`` gives this C-ordered array as ``pivot_table``'s does (reductions over it
    # then add in the same order, to the last bit)
    return pd.DataFrame(table.reshape(len(row_labels), len(col_labels)), copy=False,
                        index=pd.Index(row_labels, name=index), columns=pd.Index(col_labels, name=columns))
