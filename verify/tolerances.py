"""Every tolerance used to turn measurements into verdicts, with its justification.

Change a number here only with a reason written next to it; tests import these names so that a loosened tolerance
is visible in review.
"""

#: One-sided confidence of Monte-Carlo upper bounds on expectations (``bound_holds``): a point passes when the
#: 95% upper confidence bound of the mean over seeds is below the bound, and fails when the 95% *lower* confidence
#: bound is above it (so a FAIL is itself significant at 5%).
CONFIDENCE = 0.95

#: Bootstrap replicates for slope confidence intervals: 2000 gives CI endpoints stable to ~0.01 in slope units
#: for the 10–40 seeds used by the profiles.
BOOTSTRAP = 2000

#: Rate exponents: a fitted log–log slope agrees with the symbolic exponent p when |slope − p| ≤ 0.25.  Over the
#: one-to-two decades swept by the profiles, the sub-leading terms of the bounds (e.g. T^{-2} and T^{-3} next to
#: T^{-1}) shift the local slope by up to ~0.15 at the chosen regime boundaries (the sweeps start ≥ 5× past the
#: crossover computed by ``fedrates.bounds.analysis``), and seed noise adds ~0.05; 0.25 leaves a margin while still
#: rejecting every broken variant of the soundness tests (their slopes differ by ≥ 0.5 or plateau at 0).
SLOPE_TOLERANCE = 0.25

#: A slope verdict passes only when its whole confidence interval lies inside expected ± SLOPE_TOLERANCE (not the
#: point estimate), and needs at least this many seed rows: with fewer the seed bootstrap has (almost) nothing to
#: resample and the interval is inert.
MIN_SLOPE_SEEDS = 5

#: A slope verdict is ``inconclusive`` rather than pass/fail when the bootstrap CI is wider than this (the sweep
#: did not pin the slope down).
MAX_SLOPE_CI_WIDTH = 0.5

#: ``within_constant``: held-out points may exceed the calibrated constant by this factor (the constant is
#: calibrated on a finite sample; 50% covers seed noise of the calibration means at the profiles' seed counts).
CONSTANT_MARGIN = 0.5

#: ``comparison``: algorithm A must beat B at equal rounds with a one-sided paired test at this confidence.
COMPARISON_CONFIDENCE = 0.95

#: Relative slack allowed when comparing a deterministic quantity with an explicit bound (floating point only).
FLOAT_SLACK = 1e-9

#: Reference sufficiency: a claim measures gaps/distances against a certified optimum whose certified gap must be at
#: least this many times below the smallest quantity the claim measures; otherwise the reference could account for
#: 1% of what is measured and the verdict is ``inconclusive`` (both numbers printed), never a pass.
REFERENCE_MARGIN = 100.0

#: A bound claim whose measured/bound ratio is below 1/LOOSE_RATIO is flagged "loose" in tables and figures: such a
#: bound cannot discriminate a correct implementation from one whose error is LOOSE_RATIO times larger.
LOOSE_RATIO = 1e3

#: Exact expectations (``exact_expectation``): the Monte-Carlo mean over seeds must lie within the two-sided
#: confidence interval around the exactly computed expectation, at this *family-wise* confidence over all points of
#: the check (Bonferroni). 0.9999 keeps the false-fail rate of a correct implementation at ≤ 1e-4 per claim: Bao et al.
#: alone has 7 exact-expectation claims, so a correct run passes all of them for 10 base seeds with probability
#: ≥ 1 − 70·1e-4 ≈ 99.3% (0.999 would give only ≈ 93%). The price is a 15% wider band (z ≈ 4.1 instead of 3.6 for
#: three points), which the resolution requirement below keeps from hiding a 10% error.
EXACT_CONFIDENCE = 0.9999

#: Skewness correction of ``exact_expectation`` (``skew_corrected_quantile``), applied from this many samples on.
#: Measured on lognormal(0, 1) samples (skewness 6.2, like one round's squared gradient norm), 20,000 repetitions,
#: 99.99% two-sided: the plain Student-t interval fails a correct mean 0.085% of the time at n = 480 and 0.59% at
#: n = 100 (8× and 59× its nominal 0.01%); the corrected one 0.025% and 0.17%. Below 30 samples the sample skewness
#: (sd ≈ √(6/n) > 0.45 even for symmetric data) would widen symmetric checks for nothing; their Student-t quantile
#: with few degrees of freedom is already wide.
SKEW_MIN_SAMPLES = 30

#: Resolution of an exact-expectation check: the confidence half-width must be at most this fraction of the exact
#: value at every point, otherwise the check is ``inconclusive`` (a sweep too noisy to see a 10% error proves nothing).
EXACT_RESOLUTION = 0.1

#: Deterministic exact predictions (no Monte-Carlo noise): relative agreement required, floating point only.
EXACT_RELATIVE = 1e-8

#: Exact limits (``bao.limit/*``): with exact gradients a composite method must bring its objective gap to the
#: certified optimum below this fraction of the initial gap within the claim's rounds. The correct methods reach
#: ≤ 1e-9 on the instances used; a wrong limit point (wrong prox threshold, dropped or inexact prox, wrong client
#: weighting, scaled gradients) leaves a relative gap of order ≥ 1e-4, so 1e-6 separates the two with margin.
LIMIT_FRACTION = 1e-6
