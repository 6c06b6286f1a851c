"""Paper 3's prototype bias read as an angle: the summary reports the bias without its unit or normalisation, at values
(crlrepro/claims/paper_values.yaml, S4) that read like degrees. This module gives that reading beside the distances of
:func:`crlrepro.experiments.supervised_view.prototype_bias`:

    θ = E_{(x,y)} ∠( μ̃(x), μ̂_y ) = E_{(x,y)} arccos( ⟨μ̃(x), μ̂_y⟩ / (‖μ̃(x)‖ ‖μ̂_y‖) ) · 180/π,

with μ̃(x) = E_T f̄(T(x)) the surrogate prototype (the mean of the unit-normalised features f̄ of R augmented views
of x) and μ̂_y = E_{X|y} μ̃(X) the class prototype, both as in ``prototype_bias``. It is computed from the models at
evaluation time (the ssl_eval rule), on the same augmented views of the same bias images.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["prototype_angle", "prototype_angles"]


def prototype_angle(features: torch.Tensor, labels: torch.Tensor) -> float:
    """θ (module docstring) in degrees from features of R augmented views per image, shape (N, R, d), and the
    images' labels (N,). NaN where a surrogate or class prototype is the zero vector (its direction is undefined)."""
    unit = nn.functional.normalize(features.double(), dim=-1)
    surrogate = unit.mean(dim=1)  # μ̃(x), (N, d)
    classes = labels.unique()
    prototypes = torch.stack([surrogate[labels == k].mean(dim=0) for k in classes])  # μ̂_y
    paired = prototypes[torch.searchsorted(classes, labels)]
    norms = surrogate.norm(dim=1) * paired.norm(dim=1)
    if not bool((norms > 0).all()):
        return float("nan")
    cosine = ((surrogate * paired).sum(dim=1) / norms).clamp(-1.0, 1.0)
    return float(torch.rad2deg(torch.arccos(cosine)).mean())


def prototype_angles(records: list[dict], views: dict, device: str = "cpu") -> list[float]:
    """θ for every run record written by the ssl_train rule (in order): the projector's output g(f(·)) of the bias
    images' augmented views of the run's augmentation, as the bias columns use; NaN for a run that diverged."""
    from crlrepro.experiments.supervised_view import encode
    from crlrepro.learning.networks import ContrastiveModel

    angles = []
    for record in records:
        if record["diverged"] is not None:
            angles.append(math.nan)
            continue
        model = ContrastiveModel(**record["architecture"])
        model.load_state_dict(record["state_dict"])
        bank = views[record["augmentation"]]
        features = encode(model, bank["test_bank"], head=True, device=device)
        angles.append(prototype_angle(features, torch.as_tensor(bank["bias_labels"])))
    return angles
