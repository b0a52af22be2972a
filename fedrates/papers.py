"""The five papers whose theorems fedrates catalogues, cited by authors and title (ids as in theorem ids)."""

from __future__ import annotations

__all__ = ["PAPERS", "cite"]

#: paper id → (authors, title)
PAPERS: dict[str, tuple[str, str]] = {
    "bao": ("Bao, Crawshaw, Luo, Liu",
            "Fast Composite Optimization and Statistical Recovery in Federated Learning (ICML 2022)"),
    "bylinkin": ("Bylinkin, Skorik, Bystrov, Berezin, Avetisyan, Beznosikov",
                 "Accelerated Methods with Complexity Separation Under Data Similarity for Federated Learning "
                 "Problems"),
    "dinh": ("Dinh, Tran, Nguyen, Bao, Zomaya, Zhou",
             "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms (ICPP 2020)"),
    "das": ("Das, Hashemi, Sanghavi, Dhillon",
            "On the Convergence of Differentially Private Federated Learning on Non-Lipschitz Objectives, and with "
            "Normalized Client Updates"),
    "buttaci": ("Buttaci, Calafiore",
                "Aiding Global Convergence in Federated Learning via Local Perturbation and Mutual Similarity "
                "Information"),
}


def cite(paper_or_id: str) -> str:
    """``"Bao, Crawshaw, Luo, Liu — Fast Composite Optimization …"`` for a paper id or a theorem/claim id."""
    key = paper_or_id.split(".", 1)[0].split("/", 1)[0]
    if key not in PAPERS:
        return paper_or_id
    authors, title = PAPERS[key]
    return f"{authors}, “{title}”"
