"""fedrates._tables.pivot_last against pandas' ``pivot_table(aggfunc="last")``, label for label, on frames with
repeated (row, column) pairs, missing values and keys, text and float columns, and on an empty frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedrates._tables import pivot_last


def _frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    frame = pd.DataFrame({
        "seed": rng.integers(0, 5, n),
        "round": rng.integers(0, 6, n).astype(float),
        "algorithm": pd.Series(rng.choice(["fedavg", "fedda", "c"], n), dtype="str"),
        "value": np.where(rng.random(n) < 0.25, np.nan, rng.normal(size=n)),
    })
    if n > 3:
        frame.loc[frame.index[:2], "round"] = np.nan  # rows with a missing key are left out by both
    return frame


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("columns", ["round", "algorithm"])
def test_same_table_as_pandas_pivot_last(seed: int, columns: str) -> None:
    rng = np.random.default_rng(seed)
    frame = _frame(rng, int(rng.integers(0, 80)))
    expected = frame.pivot_table(index="seed", columns=columns, values="value", aggfunc="last")
    table = pivot_last(frame, "seed", columns)
    pd.testing.assert_frame_equal(table, expected)
    if columns == "round":  # numeric columns (pandas gives a strided view for text ones): the same memory order
        # too, so that reductions over the array add in the same order, to the last bit
        assert table.to_numpy().flags.c_contiguous == expected.to_numpy().flags.c_contiguous


def test_last_non_missing_value_wins_and_empty_rows_and_columns_go() -> None:
    frame = pd.DataFrame({"seed": [1, 1, 1, 0, 2], "round": [3, 3, 3, 3, 4],
                          "value": [1.0, 2.0, np.nan, 5.0, np.nan]})
    table = pivot_last(frame, "seed", "round")
    assert list(table.index) == [0, 1] and list(table.columns) == [3]  # seed 2 and round 4 have no value
    assert table.loc[1, 3] == 2.0 and table.loc[0, 3] == 5.0
