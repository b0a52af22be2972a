"""Broken variants of Das et al.: plausible wrong implementations of Algorithms 1–3, each applied to the claims it
names (``VARIANTS``), every one of which must fail at least one of them.  :func:`broken` builds one by its key."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache

__all__ = ["VARIANTS", "broken"]

#: first noise draw of each run of the noise-reusing variant, keyed by the id of the run's noise-stream list (the
#: list is kept alive with the draw, so its id cannot be reused by a later run)
_REUSED: dict[int, tuple[list, np.ndarray]] = {}


@observed_cache
def _broken_classes() -> dict[str, type]:
    from fedrates.solvers.algorithms.dp_fedavg_clip import DPFedAvgClip, clip_rows
    from fedrates.solvers.algorithms.dp_normfedavg import DPNormFedAvg
    from fedrates.solvers.algorithms.fedavg import FedAvg

    def noise_sum(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class NoiseNotDivided(base):
            """Sums the clients' noise instead of averaging it: a = (1/r)Σg + Σζ."""

            def aggregate(self, G, Z, mask, r):
                g, z = super().aggregate(G, Z, mask, r)
                return g, z * r

        return NoiseNotDivided

    def server_ignored(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class ServerStepIgnored(base):
            """Uses the local step η on the server (β ignored): w_{k+1} = w_k − η a_k."""

            def server(self, x, a):
                return x - self.step * a

        return ServerStepIgnored

    def noise_reused(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class NoiseReused(base):
            """Draws the privacy noise once and reuses the same vectors every round."""

            def draw_noise(self, state, shape):
                streams = state["noise_rngs"]  # one list object per run
                if id(streams) not in _REUSED:
                    _REUSED[id(streams)] = (streams, super().draw_noise(state, shape))
                return _REUSED[id(streams)][1]

        return NoiseReused

    def update_mean(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class UpdateMean(base):
            """Clips/normalises the mean of the local gradients, (w_k − w_{k,E})/(ηE), instead of their sum."""

            def client_updates(self, x, problem, ctx):
                return super().client_updates(x, problem, ctx) / self.local_steps

        return UpdateMean

    @dataclass(frozen=True, kw_only=True)
    class UpdateNotDividedByStep(DPFedAvgClip):
        """Takes the client update as w_k − w_{k,E} (the displacement) instead of (w_k − w_{k,E})/η."""

        def client_updates(self, x, problem, ctx):
            return super().client_updates(x, problem, ctx) * self.step

    @dataclass(frozen=True, kw_only=True)
    class ExtraLocalStep(DPFedAvgClip):
        """Runs E + 1 local steps (off-by-one in the local loop) and still divides by η."""

        def client_updates(self, x, problem, ctx):
            more = dataclasses.replace(self, local_steps=self.local_steps + 1)
            return DPFedAvgClip.client_updates(more, x, problem, ctx)

    @dataclass(frozen=True, kw_only=True)
    class ClipAfterNoise(DPFedAvgClip):
        """Adds the noise to u before clipping: g = clip(u + ζ, C)."""

        def transform(self, U, norms, ctx):
            return U

        def aggregate(self, G, Z, mask, r):
            sent = clip_rows(G + Z, self.clip)
            return np.einsum("rn,rnd->rd", mask / r, sent), np.zeros(G.shape[::2])

    @dataclass(frozen=True, kw_only=True)
    class DivideBySampleSize(DPFedAvgClip):
        """Divides the Poisson-sampled sum by |S_k| instead of r."""

        def aggregate(self, G, Z, mask, r):
            size = np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
            w = mask / size
            return np.einsum("rn,rnd->rd", w, G), np.einsum("rn,rnd->rd", w, Z)

    @dataclass(frozen=True, kw_only=True)
    class NormalisationDropped(DPNormFedAvg):
        """Sends the raw update u (normalisation forgotten)."""

        def transform(self, U, norms, ctx):
            return U

    @dataclass(frozen=True, kw_only=True)
    class FedAvgOneStepShort(FedAvg):
        """Runs E − 1 local steps (off-by-one in the local loop)."""

        def round(self, state, problem, ctx):
            if self.local_steps == 1:
                return super().round(state, problem, ctx)
            short = dataclasses.replace(self, local_steps=self.local_steps - 1)
            return FedAvg.round(short, state, problem, ctx)

    def noise_for_n(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class NoiseScaledForN(base):
            """Per-client noise N(0, nσ²I) (the population size) instead of N(0, rσ²I) under sampling."""

            def draw_noise(self, state, shape):
                return super().draw_noise(state, shape) / math.sqrt(self.rate)

        return NoiseScaledForN

    def last_iterate(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class LastIterate(base):
            """Returns the last iterate w_K whatever output_point says."""

            def output(self, state):
                return state["x"]

        return LastIterate

    def index_shifted(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class IndexShifted(base):
            """Keeps the new iterate w_{k+1} in the reservoir: k~ uniform on {1..K} instead of {0..K-1}."""

            def round(self, state, problem, ctx):
                out = super().round(state, problem, ctx)
                took = np.all(out["pick"] == state["x"], axis=-1)  # replica took the current iterate w_k
                out["pick"] = np.where(took[:, None], out["x"], out["pick"])
                return out

        return IndexShifted

    def reservoir_off_by_one(base: type) -> type:
        @dataclass(frozen=True, kw_only=True)
        class ReservoirOffByOne(base):
            """Replaces the kept iterate with probability 1/(k+2) instead of 1/(k+1): w_0 twice as likely."""

            def round(self, state, problem, ctx):
                k = state["k"]
                out = super().round(state, problem, ctx)
                # undo a fraction of the replacements: keep w.p. 1 - (k+1)/(k+2) those taken at rate 1/(k+1)
                took = np.all(out["pick"] == state["x"], axis=-1) & (k > 0)
                rng = out["server_rngs"]
                undo = np.array([g.random() < 1.0 / (k + 2) for g in rng]) & took
                out["pick"] = np.where(undo[:, None], state["pick"], out["pick"])
                return out

        return ReservoirOffByOne

    @dataclass(frozen=True, kw_only=True)
    class NoisePerClientSigma(DPFedAvgClip):
        """Each client adds N(0, σ²I) instead of N(0, rσ²I): the averaged noise has std σ/√r, not σ."""

        def draw_noise(self, state, shape):
            return super().draw_noise(state, shape) / math.sqrt(self.rate * shape[1])

    @dataclass(frozen=True, kw_only=True)
    class TrajectoryWithoutNoise(DPFedAvgClip):
        """Keeps the noise out of the model: w_{k+1} = w_k − β(1/r)Σ g (the noise enters only the released
        aggregate), so the iterates are those of the noiseless algorithm."""

        def round(self, state, problem, ctx):
            out = super().round(state, problem, ctx)
            out["x"] = self.server(state["x"], out["g_mean"])
            return out

    @dataclass(frozen=True, kw_only=True)
    class NormaliseAfterAverage(DPNormFedAvg):
        """Averages the raw updates of the sampled clients and normalises the average: C·ū/‖ū‖."""

        def transform(self, U, norms, ctx):
            return U

        def aggregate(self, G, Z, mask, r):
            g, z = DPNormFedAvg.aggregate(self, G, Z, mask, r)
            nrm = np.linalg.norm(g, axis=-1, keepdims=True)
            return np.where(nrm > 0, self.clip * g / np.maximum(nrm, 1e-300), 0.0), z

    return {
        "clip/noise-not-divided": noise_sum(DPFedAvgClip),
        "norm/noise-not-divided": noise_sum(DPNormFedAvg),
        "clip/server-step-ignored": server_ignored(DPFedAvgClip),
        "norm/server-step-ignored": server_ignored(DPNormFedAvg),
        "clip/noise-reused": noise_reused(DPFedAvgClip),
        "norm/noise-reused": noise_reused(DPNormFedAvg),
        "clip/update-mean": update_mean(DPFedAvgClip),
        "norm/update-mean": update_mean(DPNormFedAvg),
        "clip/clip-after-noise": ClipAfterNoise,
        "clip/update-not-divided-by-step": UpdateNotDividedByStep,
        "clip/local-steps-extra": ExtraLocalStep,
        "clip/divide-by-sample-size": DivideBySampleSize,
        "norm/normalisation-dropped": NormalisationDropped,
        "fedavg/local-steps-off-by-one": FedAvgOneStepShort,
        "clip/noise-scaled-for-n": noise_for_n(DPFedAvgClip),
        "norm/noise-scaled-for-n": noise_for_n(DPNormFedAvg),
        "clip/output-last-iterate": last_iterate(DPFedAvgClip),
        "norm/output-last-iterate": last_iterate(DPNormFedAvg),
        "clip/output-index-shifted": index_shifted(DPFedAvgClip),
        "norm/output-reservoir-off-by-one": reservoir_off_by_one(DPNormFedAvg),
        "clip/output-reservoir-off-by-one": reservoir_off_by_one(DPFedAvgClip),
        "norm/normalise-after-average": NormaliseAfterAverage,
        "clip/noise-per-client-sigma": NoisePerClientSigma,
        "clip/trajectory-without-noise": TrajectoryWithoutNoise,
    }


def broken(variant: str, **hyper: Any) -> Any:
    """An instance of the broken algorithm ``variant`` (keys of the catalogue below)."""
    return _broken_classes()[variant](**hyper)


def _apply(variant: str) -> Any:
    return lambda claim: claim.with_algorithm(broken(variant))


_VARIANT_SPECS = (
    (
        "clip/divide-by-sample-size",
        "the Poisson-sampled sum is divided by |S_k| instead of r",
        ("das.erratum/poisson-step23", "das.step23/corrected", "das.eq8/exact-poisson-noise"),
    ),
    (
        "clip/noise-not-divided",
        "the server sums the clients' noise instead of dividing it by r",
        ("das.eq8/exact-no-clip", "das.eq46/exact-drift-clip", "das.thm5/*", "das.thm2/*", "das.eq46/bound-clip",
         "das.thm3/*"),
    ),
    (
        "norm/noise-not-divided",
        "DP-NormFedAvg sums the clients' noise instead of dividing it by r",
        ("das.eq46/exact-drift-norm", "das.thm6/*", "das.thm4/*", "das.fig1/*", "das.fig2/*"),
    ),
    (
        "clip/server-step-ignored",
        "the server applies the local step eta instead of beta",
        ("das.eq8/exact-no-clip", "das.eq46/exact-drift-clip"),
    ),
    (
        "norm/server-step-ignored",
        "DP-NormFedAvg applies the local step eta instead of beta on the server",
        ("das.eq46/exact-drift-norm",),
    ),
    ("clip/noise-reused", "the same privacy-noise draw is reused every round", ("das.eq8/exact-no-clip",)),
    (
        "norm/noise-reused",
        "DP-NormFedAvg reuses the same privacy-noise draw every round",
        ("das.eq46/exact-drift-norm",),
    ),
    ("clip/clip-after-noise", "the noise is added before clipping: clip(u + zeta, C)", ("das.eq46/exact-drift-clip",)),
    (
        "norm/normalisation-dropped",
        "DP-NormFedAvg sends the raw update u",
        ("das.eq46/exact-drift-norm", "das.equivalence/clip-norm", "das.remark1/*"),
    ),
    (
        "clip/update-mean",
        "the clipped update is the mean of the local gradients, not their sum",
        ("das.lemmas/*", "das.equivalence/fedavg"),
    ),
    (
        "norm/update-mean",
        "DP-NormFedAvg normalises the mean of the local gradients (same direction)",
        ("das.lemmas/*",),
    ),
    ("fedavg/local-steps-off-by-one", "FedAvg runs E - 1 local steps", ("das.fedavg/*", "das.equivalence/fedavg")),
    (
        "clip/update-not-divided-by-step",
        "the client update is the displacement w_k - w_{k,E}, not (w_k - w_{k,E})/eta",
        ("das.prop1/*",),
    ),
    (
        "clip/local-steps-extra",
        "DP-FedAvg runs E + 1 local steps",
        ("das.prop1/*", "das.eq8/lipschitz-bound", "das.eq11/*"),
    ),
    ("clip/noise-scaled-for-n", "each sampled client adds N(0, n sigma^2 I) (population size) instead of "
     "N(0, r sigma^2 I)", ("das.thm1/eq5-epsilon", "das.eq8/exact-poisson-noise", "das.eq46/exact-drift-poisson-*")),
    ("norm/noise-scaled-for-n", "DP-NormFedAvg: each sampled client adds N(0, n sigma^2 I) instead of "
     "N(0, r sigma^2 I)", ("das.thm1/eq5-epsilon", "das.eq46/exact-drift-poisson-norm")),
    ("clip/output-last-iterate", "the last iterate w_K is returned instead of w_k~", ("das.output/random-iterate",)),
    ("norm/output-last-iterate", "DP-NormFedAvg returns the last iterate w_K", ("das.output/random-iterate-norm",)),
    ("clip/output-index-shifted", "the random output is drawn from w_1..w_K instead of w_0..w_(K-1)",
     ("das.output/random-iterate",)),
    ("clip/output-reservoir-off-by-one", "the reservoir replaces its iterate with probability 1/(k+2): k~ not "
     "uniform", ("das.output/random-iterate",)),
    ("norm/output-reservoir-off-by-one", "DP-NormFedAvg's reservoir replaces with probability 1/(k+2)",
     ("das.output/random-iterate-norm",)),
    ("norm/normalise-after-average", "DP-NormFedAvg normalises the average of the raw updates instead of each "
     "client's update", ("das.eq46/exact-drift-norm-hetero", "das.eq46/exact-drift-poisson-norm")),
    ("clip/noise-per-client-sigma", "each client adds N(0, sigma^2 I) instead of N(0, r sigma^2 I): the averaged "
     "noise has std sigma/sqrt(r)", ("das.eq11/e-tradeoff", "das.fig3/trajectories")),
    ("clip/trajectory-without-noise", "the noise enters only the released aggregate, not the model: the iterates "
     "are the noiseless algorithm's", ("das.fig3/trajectories", "das.eq11/e-tradeoff")),
)


def _variants() -> tuple:
    from fedrates.verify.variants import BrokenVariant

    return tuple(
        BrokenVariant(
            id=f"dp_{vid}" if not vid.startswith("fedavg") else f"{vid}-vs-dp",
            target="algorithm",
            bug=bug,
            claims=claims,
            apply=_apply(vid),
        )
        for vid, bug, claims in _VARIANT_SPECS
    )


VARIANTS = _variants()
