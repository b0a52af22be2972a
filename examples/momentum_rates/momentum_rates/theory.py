"""The theorems, as data (sympy right-hand sides with their conditions).

On F(w) = ½ wᵀQ̄w − b̄ᵀw with μI ⪯ Q̄ ⪯ LI, κ = L/μ, write e_t = w_t − w*.  Both methods are linear in
z_t = (e_t, e_{t−1}): z_{t+1} = T z_t with, per eigenvalue λ of Q̄, the 2 × 2 block

    heavy ball:  [[1 + β − αλ, −β], [1, 0]],      Nesterov:  [[(1 + β)(1 − αλ), −β(1 − αλ)], [1, 0]].

* Heavy ball, α = 4/(√L + √μ)², β = ((√κ − 1)/(√κ + 1))²: for every λ ∈ [μ, L] the roots of
  z² − (1 + β − αλ)z + β are complex or double with modulus √β, so ρ(T) = (√κ − 1)/(√κ + 1) (Polyak 1964;
  Lessard, Recht, Packard 2016, §2.3).
* Nesterov, α = 1/L, β = (√κ − 1)/(√κ + 1): at λ = μ the block has the double root 1 − 1/√κ and at every other
  λ ∈ [μ, L] roots of modulus ≤ √(β(1 − λ/L)) < 1 − 1/√κ, so ρ(T) = 1 − 1/√κ (Nesterov 2004, §2.2; Lessard et al.
  2016, §2.3).
* Heavy-ball bound with its constant (derived here).  Per eigen-direction with roots ρe^{±iθ} (cos θ =
  (1 + β − αλ)/(2ρ) ∈ [−1, 1]) and e_{−1} = e_0 the solution is
  e_t = ρ^t (cos tθ + (cos θ − ρ) sin tθ / sin θ) e_0 (the limits θ → 0, π at λ = μ, L), and |sin tθ| ≤ t|sin θ|,
  so for every start

      ‖w_t − w*‖ ≤ (1 + (1 + ρ) t) ρ^t ‖w_0 − w*‖,   t ≥ 0,

  attained at λ = L (e_t = (−ρ)^t (1 + (1 + ρ)t) e_0).  No constant C gives ‖w_t − w*‖ ≤ C ρ^t ‖w_0 − w*‖: the
  double roots at λ = μ and λ = L make the factor grow linearly in t.
"""

import sympy as sp

from fedrates import Theorem, syms

kappa, t, B = syms("kappa t B")

#: heavy ball's contraction factor (√κ − 1)/(√κ + 1)
RHO_HB = (sp.sqrt(kappa) - 1) / (sp.sqrt(kappa) + 1)
#: Nesterov's contraction factor 1 − 1/√κ
RHO_NAG = 1 - 1 / sp.sqrt(kappa)

_KAPPA = {"kappa": "condition number L/mu of the mean Hessian"}

HEAVY_BALL = Theorem(
    id="momentum_rates.hb",
    paper="momentum_rates",
    label="Polyak (1964); Lessard et al. (2016), §2.3",
    title="heavy ball with the optimal tuning contracts at (sqrt(kappa) - 1)/(sqrt(kappa) + 1) per round",
    statement=r"\rho(T_{\mathrm{HB}}) = \frac{\sqrt{\kappa} - 1}{\sqrt{\kappa} + 1}",
    algorithms=("heavy_ball",),
    lhs="contraction_factor",
    rhs=RHO_HB,
    kind="contraction",
    conditions=(sp.Ge(kappa, 1),),
    assumptions=("F quadratic, mu I <= Q <= L I, mu > 0", "alpha = 4/(sqrt(L) + sqrt(mu))^2, "
                 "beta = ((sqrt(kappa) - 1)/(sqrt(kappa) + 1))^2"),
    symbols=_KAPPA,
    equation="Lessard et al. (2016), §2.3",
)

NESTEROV = Theorem(
    id="momentum_rates.nesterov",
    paper="momentum_rates",
    label="Nesterov (2004), §2.2; Lessard et al. (2016), §2.3",
    title="Nesterov's method with step 1/L and momentum (sqrt(kappa) - 1)/(sqrt(kappa) + 1) contracts at "
          "1 - 1/sqrt(kappa) per round",
    statement=r"\rho(T_{\mathrm{NAG}}) = 1 - \frac{1}{\sqrt{\kappa}}",
    algorithms=("nesterov",),
    lhs="contraction_factor",
    rhs=RHO_NAG,
    kind="contraction",
    conditions=(sp.Ge(kappa, 1),),
    assumptions=("F quadratic, mu I <= Q <= L I, mu > 0", "alpha = 1/L, beta = (sqrt(kappa) - 1)/(sqrt(kappa) + 1)"),
    symbols=_KAPPA,
    equation="Lessard et al. (2016), §2.3",
)

HEAVY_BALL_BOUND = Theorem(
    id="momentum_rates.hb_bound",
    paper="momentum_rates",
    label="heavy-ball bound with its constant (derived in this package)",
    title="heavy ball: ||w_t - w*|| <= (1 + (1 + rho) t) rho^t ||w_0 - w*|| from w_{-1} = w_0",
    statement=r"\|w_t - w^\star\| \le \bigl(1 + (1 + \rho)t\bigr)\rho^t \|w_0 - w^\star\|,\ "
              r"\rho = \frac{\sqrt{\kappa} - 1}{\sqrt{\kappa} + 1}",
    algorithms=("heavy_ball",),
    lhs="distance_to_optimum",
    rhs=(1 + (1 + RHO_HB) * t) * RHO_HB**t * sp.sqrt(B),
    kind="explicit",
    conditions=(sp.Ge(kappa, 1),),
    assumptions=HEAVY_BALL.assumptions + ("w_{-1} = w_0",),
    symbols={**_KAPPA, "t": "rounds", "B": "squared initial distance ||w_0 - w*||^2"},
    equation="momentum_rates.theory",
)

THEOREMS = (HEAVY_BALL, NESTEROV, HEAVY_BALL_BOUND)
