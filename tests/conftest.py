from pathlib import Path

import pytest

from crlrepro.gmm import LatentClassGMM

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture
def paper_gmm():
    """Paper 2's setting: K=2, π=(½,½), μx=μy=(1.2, −1.2), σ=1."""
    return LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])


@pytest.fixture
def skewed_gmm():
    """An unbalanced, asymmetric K=3 mixture with unequal variances (a setting the paper never used)."""
    return LatentClassGMM([0.2, 0.5, 0.3], [2.0, -1.0, 0.3], [0.5, 1.5, 1.0], [-1.0, 0.4, 3.0], [2.0, 0.7, 1.2])
