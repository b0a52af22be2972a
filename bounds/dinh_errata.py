"""The errata of Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms" (ICPP
2020), each with its kind, the place and wording of the paper, what is true instead, the evidence and the prediction
its claim tests (the :class:`~fedrates.errata.Erratum` contract).  Shared by the catalogue notes
(:mod:`fedrates.bounds.catalog.dinh`) and the claims (:mod:`fedrates.verify.claims.dinh.errata`); no heavy imports.

Kinds, and why:

* ``svrg-large-beta`` (Remark 1(1), SVRG): **statement-false**: a counterexample satisfying every assumption.
* ``smallest-tau`` (Remark 1(3)): **statement-false**: (16) is not the smallest τ that Lemma 1(a) admits.
* ``tau-order`` (Remark 1(5)): **over-claim**: the inference "larger β_min, thus larger τ" does not follow; the
  reversal at β_min is a consequence of Remark 1(3), and at the smallest admissible τ the ordering holds (weakly).
* ``tau-lower-mu`` (Remark 1(4)): **statement-false**: at fixed β the lower bound (13) decreases in μ on
  (λ, λ + √(λ² + β²L²)) — including the remark's own case of raising μ just above a large λ — at configurations that
  satisfy every condition of Lemma 1(a); the algorithm's exact local accuracy improves there too.
* ``experiments`` (§5, Tables 1-2): **experiment-outside-theory**: reported configurations violate Lemma 1.
* Theorem 1's index range (the proof's last display) is a **typo** (a catalogue note, not a claim): (17) as printed
  still follows from (86) and E F̄(w̄⁽¹⁾) ≤ F̄(w̄⁽⁰⁾).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERRATA", "erratum"]

ERRATA: dict[str, dict[str, str]] = {
    "svrg-large-beta": {
        "kind": "statement-false",
        "where": "Remark 1(1), on Lemma 1(b) (14)",
        "quote": "For an arbitrary θ ∈ (0, 1], we can always choose a sufficiently large β to satisfy both (13) and "
                 "(14), where the lower and upper bounds of τ are Ω(β) and O(β²), respectively.",
        "true_statement": "True for SARAH (13).  For SVRG (14) the constant a must satisfy a − 4 ≥ 4√(a(τ+1)), whose "
                          "smallest solution a_min(τ) = 4(√(τ+1) + √(τ+2))² ≈ 16τ grows with τ, so the upper bound is "
                          "about √(5/128)·β ≈ 0.198β (O(β), not O(β²)) while the lower bound grows like "
                          "3βL/(θ²μ̃): a large β satisfies (14) only if θ²μ̃/L > 15.18.",
        "evidence": "The paper's formulas (14), (65)-(66): τ_max^SVRG(β) = 0.184, 2.14, 8.06, 17.9, 37.7 at β = 10, "
                    "20, 50, 100, 200 and 0.19764β at β = 10⁶; at L = 1, λ = 0.5, μ = 10, θ = 0.3 (θ²μ̃/L = 0.855) "
                    "no β ≤ 10⁷ satisfies (14).",
        "prediction": "no β ≤ 1e7 satisfies (14) at L = 1, λ = 0.5, μ = 10, θ = 0.3, with τ_max^SVRG(β) at the "
                      "predicted values (rtol 2e-3)",
    },
    "smallest-tau": {
        "kind": "statement-false",
        "where": "Remark 1(3), (15)-(16)",
        "quote": "we choose the smallest β_min satisfying Lemma 1 conditions by solving (e.g., in case of SARAH) (15) "
                 "... and correspondingly obtaining (the smallest) τ: τ = (5β²_min − 4β_min)/8. (16)",
        "true_statement": "τ_lower(β) of (13) decreases in β up to β = 3 + √(9 + μ²/L²), where it equals "
                          "6βL/(θ²μ̃); at β_min the admissible interval is the single point (16).  The smallest τ "
                          "Lemma 1(a) admits is min_β τ_lower(β) over the feasible β, in general far below (16).",
        "evidence": "At L = 1, λ = 0, μ = 200, θ = 0.6: (16) gives τ = 137.2 at β_min = 15.22, while β = 203.02 "
                    "admits τ = 16.92 (both bounds of (13) hold there).  Consequence for §4.3: (20) minimised over "
                    "Lemma 1(a)'s feasible set improves on the design (23) by 16.5% at L = 1, λ = 0.5, σ̄² = 0.5, "
                    "γ = 1 (objective 8025 against 9613: fedrates explore dinh.eq20 / dinh.sec4.3 --minimize).",
        "prediction": "τ(β_min) = 137.2 exceeds the smallest admissible τ = 16.92 at β = 203.02 (L = 1, λ = 0, "
                      "μ = 200, θ = 0.6; rtol 2e-3)",
    },
    "tau-order": {
        "kind": "over-claim",
        "where": "Remark 1(5)",
        "quote": "Compared to SARAH, SVRG has stricter condition for upper bound (due to a ≥ 4). Thus, SVRG requires a "
                 "larger β_min to satisfy condition (14), and thus larger τ (due to the lower bound).",
        "true_statement": "β_min^SVRG ≥ β_min^SARAH holds (SARAH's feasible set contains SVRG's), and so does the "
                          "ordering of the smallest admissible τ (weakly, for the same reason).  'Thus larger τ' at "
                          "β_min does not follow: τ_lower(β) decreases in β up to 3 + √(9 + μ²/L²), so the larger "
                          "β_min can give the smaller τ.  A consequence of Remark 1(3) (τ at β_min is not the "
                          "smallest τ), not a separate error.",
        "evidence": "At L = 1, λ = 0, μ = 200, θ = 0.6: SARAH (β_min, τ) = (15.22, 137.2), SVRG (111.25, 20.16).",
        "prediction": "τ at SVRG's β_min (20.16) is below τ at SARAH's β_min (137.2) at L = 1, λ = 0, μ = 200, "
                      "θ = 0.6 (rtol 2e-3)",
    },
    "tau-lower-mu": {
        "kind": "statement-false",
        "where": "Remark 1(4), on Lemma 1 (13)",
        "quote": "Observing that the lower bound of τ is Ω(μ), thus increasing μ (e.g., to make μ̃ ≥ 0 when λ is "
                 "large) will increase τ. This is because larger μ will enforce the local update more proximal to the "
                 "'anchor' point, thus making the convergence to the θ-accurate solution more slowly.",
        "true_statement": "τ_lower = 3(β²L² + μ²)/(θ²μ̃L(β − 3)) is Ω(μ) as μ → ∞, but at fixed β its derivative in "
                          "μ has the sign of μ² − 2λμ − β²L²: it decreases on (λ, μ*), μ* = λ + √(λ² + β²L²), "
                          "where it attains 6μ*/(θ²L(β − 3)), and increases only beyond μ*.  Raising μ from just "
                          "above λ (the remark's own case) lowers the bound; it also lowers the τ of (16) at the "
                          "paper's design β_min(μ), and the algorithm's exact local accuracy at fixed τ improves.",
        "evidence": "Certified constants of the non-convex instance dinh_nc (N = 2, D_n = 4, d = 2, seed 0: L = 2.469, "
                    "λ = 0.641), θ = 0.6, β = 20: τ_lower = 196.9 at μ = λ + L and 19.86 at μ* = 50.03 (both within "
                    "τ ≤ (5β² − 4β)/8 = 240, so Lemma 1(a) holds at both); τ of (16) at β_min(μ): 173.5 at μ = λ + L, "
                    "38.1 at μ*; exact E‖∇J_n(w_n)‖²/‖∇F_n(w̄)‖² of FedProxVR-SARAH at τ = 20 (worst device): 0.44 at "
                    "μ = λ + L, 0.064 at μ*.",
        "prediction": "on the certified constants of dinh_nc at θ = 0.6, β = 20: the minimiser of τ_lower over μ is "
                      "the closed form μ* = λ + √(λ² + β²L²) (rtol 1e-6) with value 6μ*/(θ²L(β − 3)) (rtol 1e-9), "
                      "τ_lower(λ + L) > τ_lower(μ*) with both inside Lemma 1(a), and the exact local accuracy of the "
                      "algorithm at τ = 20 is lower at μ* than at λ + L",
    },
    "experiments": {
        "kind": "experiment-outside-theory",
        "where": "§5, Tables 1 and 2 (FedProxVR rows) and the text on Figs. 2-3",
        "quote": "we first choose the value of β, then determine τ based on its upper-bound in Lemma 1 such that the "
                 "algorithms empirically converge; Table 1: FedProxVR (SARAH) τ = 20, β = 5; FedProxVR (SVRG) "
                 "τ = 20, β = 10 (Table 2: SVRG τ = 20, β = 10)",
        "true_statement": "Lemma 1's upper bounds depend on β only: (13) allows τ ≤ (5β² − 4β)/8 = 13.125 at β = 5, "
                          "and (14), even with the smallest admissible a, allows τ ≤ 0.184 at β = 10 (τ = 20 needs "
                          "β ≥ 110.43).  Table 1's SARAH row and the SVRG rows of Tables 1-2 are outside Lemma 1 "
                          "(Table 2's SARAH row, τ = 20 ≤ 46.1 at β = 9, meets the upper bound; the lower bounds need "
                          "L and μ̃, which the paper does not report).  These accuracies are not evidence about the "
                          "theorems' regime.  (Taken as printed: the released code sets η directly, so the β of §5 "
                          "may be labels.)",
        "evidence": "The paper's formulas at the printed (β, τ): τ_upper^SARAH(5) = 13.125, τ_upper^SARAH(9) = "
                    "46.125, τ_max^SVRG(10) = 0.184, smallest β with τ = 20 feasible for SVRG = 110.43.",
        "prediction": "τ_upper^SARAH(5) = 13.125 < 20 and τ_max^SVRG(10) = 0.184 < 20, with β ≥ 110.43 needed for "
                      "SVRG at τ = 20 (rtol 2e-3)",
    },
}


def erratum(key: str) -> Any:
    """The :class:`~fedrates.errata.Erratum` of ``key``."""
    from fedrates.errata import Erratum

    return Erratum(**ERRATA[key])
