"""Privacy accounting of the Gaussian mechanisms of Das et al. (Algorithms 1–2, Theorem 1, eq. 5) on Google's
``dp-accounting`` (RDP and PLD accountants); nothing here is an accountant of its own except the closed form used
to check them.

The mechanism.  In round k every client of the Poisson sample S_k (rate p = r/n) sends g_k^(i) + ζ_k^(i) with
‖g_k^(i)‖ ≤ C and ζ_k^(i) ~ N(0, rσ²I), and the server releases a_k = (1/r)Σ_{i∈S_k}(g_k^(i) + ζ_k^(i)).  Up to the
public factor 1/r this is the sum Σ_{i∈S_k} g_k^(i) plus N(0, |S_k|·rσ²I), i.e. — conditionally on S_k — a Gaussian
mechanism on the sum.  Client-level adjacency:

* ``add-remove`` (one client's data added or removed): the sum moves by at most C (sensitivity C);
* ``replace-one`` (one client's data replaced): the sum moves by at most 2C.

The accountants take the noise multiplier z = (noise std on the sum)/(sensitivity unit C).  With r participants on
average the std of the summed noise is rσ (it is exactly rσ when |S_k| = r; the accountant's sampled-Gaussian
model is the release Σ_S g + N(0, (rσ)²I)), so

    z = r σ / C,    and with eq. (5)'s σ² = q K C² log(1/δ)/(n² ε²):   z = (r/n) √(q K log(1/δ)) / ε.

K rounds compose K times (adaptive composition: the accountants' ``SelfComposedDpEvent``); the returned point
w_{k̃} and every iterate are post-processing.  ``dp-accounting``'s RDP accountant has no Poisson-sampled event
under replace-one adjacency: :func:`epsilon` returns None there (the PLD accountant covers it).

Closed form (the check of the accountants).  Without sampling, K compositions of the Gaussian mechanism with
multiplier z are exactly one Gaussian mechanism with multiplier z/√K, i.e. μ-GDP with μ = s√K/z (s = 1 add/remove,
2 replace-one), whose exact privacy curve is (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2019, Cor. 2.13)

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).

:func:`gaussian_epsilon_exact` inverts it; PLD must match it from above to its discretisation and RDP must lie above.

Accountant calls take 0.1–1 s (PLD) and calibrations a few seconds: every result is cached in memory and on disk
(a checksummed JSON document per query in the fedrates cache, keyed by the dp-accounting version).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from fedrates.solvers.errors import InputError

__all__ = [
    "ACCOUNTANTS",
    "ADJACENCIES",
    "calibrated_sigma",
    "epsilon",
    "eq5_noise_multiplier",
    "gaussian_delta_exact",
    "gaussian_epsilon_exact",
    "noise_multiplier_for",
    "q_for",
    "sensitivity_factor",
]

ACCOUNTANTS = ("rdp", "pld")
ADJACENCIES = ("add-remove", "replace-one")
#: PLD discretisation of the privacy loss for reported ε (dp-accounting's default)
PLD_INTERVAL = 1e-4
#: PLD discretisation inside calibrations: the discretisation is pessimistic (ε at any grid is an upper bound), so a
#: multiplier calibrated on the coarser grid is private on the finer one; 5-10x faster per call
PLD_CALIBRATION_INTERVAL = 1e-3
#: relative tolerance of every calibration (in the noise multiplier); the returned z is rounded *up* by it
CALIBRATION_RTOL = 1e-5


def _check(accountant: str, adjacency: str) -> None:
    if accountant not in ACCOUNTANTS:
        raise InputError(f"accountant={accountant!r} is not known; expected one of {', '.join(ACCOUNTANTS)}")
    if adjacency not in ADJACENCIES:
        raise InputError(f"adjacency={adjacency!r} is not known; expected one of {', '.join(ADJACENCIES)}")


def _positive(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number; expected a finite number > 0") from None
    if not math.isfinite(v) or v <= 0:
        raise InputError(f"{name}={value!r} is out of range; expected a finite number > 0")
    return v


def _rate(rate: Any) -> float:
    p = _positive("rate", rate)
    if p > 1:
        raise InputError(f"rate={rate!r} is out of range; expected a sampling rate 0 < rate <= 1")
    return p


def _delta(delta: Any) -> float:
    d = _positive("delta", delta)
    if d >= 1:
        raise InputError(f"delta={delta!r} is out of range; expected 0 < delta < 1")
    return d


def _rounds(rounds: Any) -> int:
    if isinstance(rounds, bool) or not float(rounds).is_integer() or int(rounds) < 1:
        raise InputError(f"rounds={rounds!r} is out of range; expected an integer K >= 1")
    return int(rounds)


def sensitivity_factor(adjacency: str) -> float:
    """L2 sensitivity of the sum of client contributions in units of C: 1 (add/remove), 2 (replace-one)."""
    _check("rdp", adjacency)
    return 1.0 if adjacency == "add-remove" else 2.0


# ---- disk cache ----------------------------------------------------------------------------------------------------
def _version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("dp-accounting")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - installed without metadata
        return "unknown"


def _cached(what: str, settings: dict, compute) -> Any:
    """``compute()`` through the fedrates document cache (``<cache>/privacy``); a failed write is not an error."""
    from fedrates.solvers import _cache

    try:
        key = _cache.entry_key(f"dp-accounting {_version()}", {"what": what, **settings})
        directory = _cache.cache_dir() / "privacy"
        doc = _cache.load_document(key, directory)
    except OSError:
        key, doc = None, None
    if doc is not None and "value" in doc:
        return doc["value"]
    value = compute()
    if key is not None:
        _cache.store_document(key, {"value": value, **settings, "what": what}, directory)
    return value


# ---- the accountants -------------------------------------------------------------------------------------------------
def _event(z: float, rate: float, rounds: int, adjacency: str, accountant: str):
    import dp_accounting as dpa

    if accountant == "rdp" and adjacency == "replace-one" and rate >= 1.0:
        # RDP's Gaussian event is sensitivity-1 whatever the relation: replace-one is sensitivity 2, multiplier z/2
        return dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(z / 2.0), rounds)
    gauss = dpa.GaussianDpEvent(z)
    single = gauss if rate >= 1.0 else dpa.PoissonSampledDpEvent(rate, gauss)
    return dpa.SelfComposedDpEvent(single, rounds)


def _fresh(accountant: str, adjacency: str, interval: float = PLD_INTERVAL):
    import dp_accounting as dpa
    from dp_accounting import pld, rdp

    if accountant == "rdp":
        # replace-one without sampling is handled by the event (sensitivity 2); the relation itself stays add/remove
        return rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
    rel = (dpa.NeighboringRelation.ADD_OR_REMOVE_ONE if adjacency == "add-remove"
           else dpa.NeighboringRelation.REPLACE_ONE)
    return pld.PLDAccountant(rel, value_discretization_interval=interval)


def supported(rate: float, accountant: str, adjacency: str) -> bool:
    """Whether dp-accounting's ``accountant`` covers this (sampling, adjacency): not RDP + Poisson + replace-one."""
    return not (accountant == "rdp" and adjacency == "replace-one" and rate < 1.0)


class _QuietAbsl:
    """Silence absl's warnings while an accountant runs (the RDP accountant logs every order whose series does
    not converge and excludes it, which is the documented behaviour, not an error)."""

    def __enter__(self) -> None:
        import logging

        self.logger = logging.getLogger("absl")
        self.level = self.logger.level
        self.logger.setLevel(logging.ERROR)

    def __exit__(self, *exc: Any) -> None:
        self.logger.setLevel(self.level)


def _epsilon_raw(z: float, rate: float, rounds: int, delta: float, accountant: str, adjacency: str,
                 interval: float = PLD_INTERVAL) -> float:
    acc = _fresh(accountant, adjacency, interval)
    acc.compose(_event(z, rate, rounds, adjacency, accountant))
    with _QuietAbsl():
        return float(acc.get_epsilon(delta))


@cache
def _epsilon(z: float, rate: float, rounds: int, delta: float, accountant: str, adjacency: str,
             interval: float) -> float:
    settings = {"z": z, "rate": rate, "rounds": rounds, "delta": delta, "accountant": accountant,
                "adjacency": adjacency, "pld_interval": interval}
    return float(_cached("epsilon", settings,
                         lambda: _epsilon_raw(z, rate, rounds, delta, accountant, adjacency, interval)))


#: significant digits of the multiplier an ε is computed at (see :func:`key_multiplier`)
KEY_DIGITS = 12


def key_multiplier(z: float) -> float:
    """z rounded *down* to :data:`KEY_DIGITS` significant digits: the multiplier at which ε is computed and cached.

    The same multiplier reached by two roundings (σ = zC/r and back, z = rσ/C, at two clips C) differs in its last
    bits; both now share one accountant run.  Less noise never buys more privacy, so ε(key) ≥ ε(z): the ε reported
    at the key (z lowered by a relative 1e-12 at most) stays an upper bound on the ε of z."""
    m = 10.0 ** (math.floor(math.log10(z)) - (KEY_DIGITS - 1))
    key = math.floor(z / m) * m
    while key > z:
        key = math.nextafter(key, 0.0)
    return key if key > 0 else z


def epsilon(noise_multiplier: float, rate: float, rounds: int, delta: float, *, accountant: str = "pld",
            adjacency: str = "add-remove", interval: float = PLD_INTERVAL) -> float | None:
    """ε at δ of K = ``rounds`` compositions of the Poisson-sampled (rate p) Gaussian mechanism with multiplier
    z = ``noise_multiplier`` (std of the summed noise over C), by dp-accounting's RDP or PLD accountant; None where
    dp-accounting has no such accountant (RDP with sampling under replace-one).

    ``interval`` is the PLD discretisation of the privacy loss (:data:`PLD_INTERVAL`, dp-accounting's default;
    :data:`PLD_CALIBRATION_INTERVAL` is 5-10x faster): the discretisation is pessimistic, so every interval gives an
    upper bound on the exact ε, finer ones usually a tighter one.  ε is computed at :func:`key_multiplier` (z rounded
    down by at most a relative 1e-12), so it is never below the ε of z itself."""
    _check(accountant, adjacency)
    z, p, K, d = _positive("noise_multiplier", noise_multiplier), _rate(rate), _rounds(rounds), _delta(delta)
    step = _positive("interval", interval)
    if not supported(p, accountant, adjacency):
        return None
    return _epsilon(key_multiplier(z), p, K, d, accountant, adjacency, step if accountant == "pld" else PLD_INTERVAL)


@cache
def _calibrate(eps: float, delta: float, rate: float, rounds: int, accountant: str, adjacency: str) -> float:
    def compute() -> float:
        # imported only when the cache has no answer: dp-accounting imports scipy.signal (about 1.3 s of CPU)
        from dp_accounting import mechanism_calibration as mc

        # bracket from the closed form of the unsampled mechanism: sampling lowers the multiplier needed by about
        # the rate (amplification), an accountant only raises it; widened once if that guess does not bracket
        z0 = gaussian_multiplier_exact(eps, delta, rounds, adjacency)
        tol = CALIBRATION_RTOL * z0 * rate
        if rate >= 1.0:
            # without sampling z0 is the exact answer and no valid accountant certifies less noise, so z0 is at most
            # the accountant's root: z0(1 + rtol), once the accountant confirms it (PLD does to about 1e-8 relative),
            # is within the calibration tolerance of the root, on its private side
            z = z0 * (1.0 + CALIBRATION_RTOL)
            if _epsilon_raw(z, rate, rounds, delta, accountant, adjacency, PLD_CALIBRATION_INTERVAL) <= eps:
                return z
        # otherwise the root is searched: without sampling in [0.99 z0, 1.05 z0] (fewer root-finding steps than the
        # wide bracket); the wide brackets stay as the fallback
        brackets = [(0.99 * z0, 1.05 * z0)] if rate >= 1.0 else []
        brackets += [(0.5 * z0 * rate, 4.0 * z0), (0.05 * z0 * rate, 4.0 * z0)]
        for lo, hi in brackets:
            try:
                with _QuietAbsl():
                    z = mc.calibrate_dp_mechanism(
                        lambda: _fresh(accountant, adjacency, PLD_CALIBRATION_INTERVAL),
                        lambda x: _event(x, rate, rounds, adjacency, accountant),
                        eps, delta, bracket_interval=mc.ExplicitBracketInterval(lo, hi), tol=tol,
                    )
                return float(z) + tol  # on the private side of the root
            except ValueError:
                continue
        raise InputError(f"no noise multiplier in [{0.05 * z0 * rate:.3g}, {4 * z0:.3g}] gives eps={eps:g} at "
                         f"delta={delta:g}")

    settings = {"eps": eps, "delta": delta, "rate": rate, "rounds": rounds, "accountant": accountant,
                "adjacency": adjacency, "pld_interval": PLD_CALIBRATION_INTERVAL, "rtol": CALIBRATION_RTOL,
                "unsampled": "exact multiplier confirmed"}
    return float(_cached("noise_multiplier", settings, compute))


def noise_multiplier_for(eps: float, delta: float, rate: float, rounds: int, *, accountant: str = "pld",
                         adjacency: str = "add-remove") -> float:
    """The smallest noise multiplier z (to relative 1e-5, rounded up) whose K-fold Poisson-sampled Gaussian
    mechanism is (ε, δ)-DP by the chosen accountant and adjacency."""
    _check(accountant, adjacency)
    e, d, p, K = _positive("eps", eps), _delta(delta), _rate(rate), _rounds(rounds)
    if not supported(p, accountant, adjacency):
        raise InputError("the RDP accountant of dp-accounting has no Poisson-sampled Gaussian under replace-one "
                         "adjacency; use accountant='pld'")
    return _calibrate(e, d, p, K, accountant, adjacency)


def eq5_noise_multiplier(q: float, eps: float, delta: float, rounds: int, clients: int, participants: float) -> float:
    """z = rσ/C for eq. (5)'s σ² = qKC²log(1/δ)/(n²ε²): z = (r/n)√(qK log(1/δ))/ε (Das et al., Theorem 1)."""
    q, e, d = _positive("q", q), _positive("eps", eps), _delta(delta)
    K, n, r = _rounds(rounds), _positive("clients", clients), _positive("participants", participants)
    return (r / n) * math.sqrt(q * K * math.log(1.0 / d)) / e


def q_for(eps: float, delta: float, rounds: int, clients: int, participants: float, *, accountant: str = "pld",
          adjacency: str = "add-remove") -> float:
    """The constant q of eq. (5) for which its noise is exactly (ε, δ)-DP by the accountant: the inverse of
    :func:`eq5_noise_multiplier` at the calibrated multiplier, q = (z n ε / r)² / (K log(1/δ))."""
    n, r = _positive("clients", clients), _positive("participants", participants)
    if r > n:
        raise InputError(f"participants={participants!r} is out of range; expected 0 < r <= n = {clients}")
    z = noise_multiplier_for(eps, delta, r / n, rounds, accountant=accountant, adjacency=adjacency)
    return (z * n * float(eps) / r) ** 2 / (int(rounds) * math.log(1.0 / float(delta)))


def calibrated_sigma(eps: float, delta: float, rounds: int, clip: float, clients: int, participants: float, *,
                     accountant: str = "pld", adjacency: str = "add-remove") -> float:
    """Std σ of the server-averaged noise (Alg. 1/2: per client N(0, rσ²I), divided by r) that makes K rounds of
    Algorithm 1/2 with Poisson rate r/n (ε, δ)-DP at client level: σ = z C / r with z from
    :func:`noise_multiplier_for`."""
    n, r, C = _positive("clients", clients), _positive("participants", participants), _positive("clip", clip)
    if r > n:
        raise InputError(f"participants={participants!r} is out of range; expected 0 < r <= n = {clients}")
    z = noise_multiplier_for(eps, delta, r / n, rounds, accountant=accountant, adjacency=adjacency)
    return z * C / r


# ---- the closed form (no sampling) -----------------------------------------------------------------------------------
def _mu(z: float, rounds: int, adjacency: str) -> float:
    return sensitivity_factor(adjacency) * math.sqrt(rounds) / z


def gaussian_delta_exact(eps: float, mu: float) -> float:
    """δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ): the exact privacy curve of μ-GDP (Balle & Wang 2018, Thm 8), i.e. of
    the Gaussian mechanism with sensitivity/std = μ; the second term in log space."""
    from scipy.special import log_ndtr, ndtr

    a = ndtr(mu / 2.0 - eps / mu)
    b = math.exp(eps + float(log_ndtr(-mu / 2.0 - eps / mu)))
    return float(a - b)


def gaussian_epsilon_exact(noise_multiplier: float, rounds: int, delta: float, adjacency: str = "add-remove") -> float:
    """The exact ε at δ of K compositions of the unsampled Gaussian mechanism with multiplier z (sensitivity C for
    add/remove, 2C for replace-one): root of :func:`gaussian_delta_exact` with μ = s√K/z (δ(ε) is decreasing)."""
    from scipy.optimize import brentq

    z, K, d = _positive("noise_multiplier", noise_multiplier), _rounds(rounds), _delta(delta)
    mu = _mu(z, K, adjacency)
    if gaussian_delta_exact(0.0, mu) <= d:
        return 0.0
    hi = 1.0
    while gaussian_delta_exact(hi, mu) > d:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta_exact(e, mu) - d, 0.0, hi, xtol=1e-12, rtol=1e-12))


def gaussian_multiplier_exact(eps: float, delta: float, rounds: int, adjacency: str = "add-remove") -> float:
    """The exact multiplier z of K unsampled Gaussian compositions that is (ε, δ)-DP: μ solves δ(ε; μ) = δ
    (δ(ε; μ) is increasing in μ), z = s√K/μ."""
    from scipy.optimize import brentq

    e, d, K = _positive("eps", eps), _delta(delta), _rounds(rounds)
    lo, hi = 1e-6, 1.0
    while gaussian_delta_exact(e, hi) < d:
        hi *= 2.0
    mu = brentq(lambda m: gaussian_delta_exact(e, m) - d, lo, hi, xtol=1e-14, rtol=1e-13)
    return sensitivity_factor(adjacency) * math.sqrt(K) / mu
