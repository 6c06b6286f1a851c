"""Paper 3, Thms 4.4 and 4.6 evaluated on features (crlrepro.learning.prototype_bounds): against literal loops, on
constructions where each bound holds and where it fails, invariances, stability, chunking, bad inputs."""

import math

import numpy as np
import pytest
import torch

from crlrepro.learning.prototype_bounds import attraction_bound, bound_summary, repulsion_bound


def _norm(v):
    return math.sqrt(sum(x * x for x in v))


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True)) / (_norm(a) * _norm(b))


def loop_attraction(views):
    """Thm 4.4 with E_T the R views, literally: lhs = −cos(f(t_r), mean_r' f̄(t_r')), rhs = −mean_r' cos(f(t_r), f(t_r'))."""
    lhs, rhs = [], []
    for image in views.tolist():
        units = [[x / _norm(v) for x in v] for v in image]
        mean = [sum(u[j] for u in units) / len(units) for j in range(len(units[0]))]
        for v in image:
            lhs.append(-_cos(v, mean))
            rhs.append(-sum(_cos(v, w) for w in image) / len(image))
    return np.array(lhs), np.array(rhs)


def loop_repulsion(anchors, anchor_labels, pool, pool_labels, alpha, nu, n):
    """Thm 4.6, literally: prototypes = mean of f̄ over a class's pool images and views; E_{X'} over the pool
    images, E_{T'} over the view index."""
    pool_l, labels = pool.tolist(), list(pool_labels)
    d, views = len(pool_l[0][0]), len(pool_l[0])
    protos = {}
    for c in sorted(set(labels)):
        units = [[x / _norm(v) for x in v] for img, y in zip(pool_l, labels, strict=True) if y == c for v in img]
        protos[c] = [sum(u[j] for u in units) / len(units) for j in range(d)]
    lhs, rhs = [], []
    for z, y in zip(anchors.tolist(), anchor_labels, strict=True):
        lhs.append(max(_cos(z, mu) for c, mu in protos.items() if c != y))
        terms = []
        for r in range(views):
            moment = sum(math.exp(alpha * _cos(z, img[r])) for img in pool_l) / len(pool_l)
            terms.append(math.log(moment) / (nu * alpha))
        rhs.append(sum(terms) / views + math.log(n) / (nu * alpha))
    return np.array(lhs), np.array(rhs)


def clusters(rng, classes, per_class, views, d, noise):
    """Balanced synthetic clusters: class centres on orthogonal axes, every view = centre + noise."""
    centres = np.eye(d)[:classes] * 3.0
    labels = np.repeat(np.arange(classes), per_class)
    feats = centres[labels][:, None, :] + noise * rng.standard_normal((len(labels), views, d))
    return feats, labels


# --- against literal loops ------------------------------------------------------------------------


@pytest.mark.parametrize("r", [2, 3, 5])
def test_attraction_matches_loop(r):
    views = np.random.default_rng(r).standard_normal((4, r, 5)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0])
    out = attraction_bound(views)
    lhs, rhs = loop_attraction(views)
    assert out["lhs"].dtype == np.float64 and out["lhs"].shape == (4 * r,)
    np.testing.assert_allclose(out["lhs"], lhs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["rhs"], rhs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["slack"], rhs - lhs, rtol=0, atol=1e-12)


@pytest.mark.parametrize("nu,num_classes", [(1.0, None), (0.7, 5), (3.0, 3)])
def test_repulsion_matches_loop(nu, num_classes):
    rng = np.random.default_rng(11)
    pool = rng.standard_normal((9, 3, 4)) + 0.5
    pool_labels = np.array([2, 0, 5, 2, 0, 5, 5, 0, 2])
    anchors = (rng.standard_normal((7, 4)) + 0.5).astype(np.float32).astype(np.float64)  # exact in float32 and float64
    anchor_labels = np.array([0, 2, 5, 5, 0, 2, 0])
    out = repulsion_bound(
        torch.tensor(anchors, dtype=torch.float32),
        anchor_labels,
        pool,
        torch.tensor(pool_labels),
        alpha=2.5,
        nu=nu,
        num_classes=num_classes,
    )
    lhs, rhs = loop_repulsion(anchors, anchor_labels, pool, pool_labels, 2.5, nu, num_classes or 3)
    assert out["rhs"].dtype == np.float64 and out["rhs"].shape == (7,)
    np.testing.assert_allclose(out["lhs"], lhs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["rhs"], rhs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["slack"], rhs - lhs, rtol=0, atol=1e-12)
    assert set(out["nearest_other_class"]).issubset({0, 2, 5})
    assert (out["nearest_other_class"] != anchor_labels).all()


# --- attraction: where it holds, where it fails ----------------------------------------------------


def test_attraction_holds_for_close_views():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((50, 1, 16))
    views = base + 0.05 * rng.standard_normal((50, 4, 16))
    summary = bound_summary(attraction_bound(views))
    assert summary["share_holds"] == 1.0
    assert summary["min_slack"] > 0  # ‖m‖ < 1 and f̄·m > 0: strictly


def test_attraction_fails_on_constructed_point():
    rng = np.random.default_rng(1)
    close = np.array([1.0, 0.0, 0.0]) + 0.05 * rng.standard_normal((3, 3))
    # image 1, view 0 = e1; the other two views point away: mean of the others has dot −0.9 < −1/(R−1) = −0.5
    far = np.array([[1.0, 0.0, 0.0], [-0.9, math.sqrt(0.19), 0.0], [-0.9, -math.sqrt(0.19), 0.0]])
    out = attraction_bound(np.stack([close, far]))
    mean = far.mean(axis=0)
    dot = far[0] @ mean  # (1 − 1.8)/3 < 0
    assert dot < 0
    np.testing.assert_allclose(out["slack"][3], dot * (1 / np.linalg.norm(mean) - 1), rtol=1e-12)
    assert out["slack"][3] < 0
    assert (out["slack"][:3] > 0).all()
    summary = bound_summary(out)
    assert summary["share_holds"] < 1 and summary["min_slack"] < 0
    assert summary["share_holds"] == pytest.approx(5 / 6)  # views 1 and 2 of the far image hold


def test_attraction_condition_is_exactly_the_sign_of_the_dot_with_the_mean():
    views = np.random.default_rng(2).standard_normal((200, 5, 3))
    out = attraction_bound(views)
    unit = views / np.linalg.norm(views, axis=-1, keepdims=True)
    dots = np.einsum("nrd,nd->nr", unit, unit.mean(axis=1)).reshape(-1)
    assert (dots < 0).any() and (dots > 0).any()  # both cases occur on isotropic views
    np.testing.assert_array_equal(out["slack"] >= 0, dots >= 0)
    np.testing.assert_allclose(out["rhs"], out["mean_norm"] * out["lhs"], rtol=0, atol=1e-13)


def test_attraction_always_holds_for_two_views():
    out = attraction_bound(np.random.default_rng(3).standard_normal((300, 2, 4)))
    assert out["slack"].min() >= -1e-14


def test_attraction_scale_invariance():
    rng = np.random.default_rng(4)
    views = rng.standard_normal((6, 4, 5))
    scales = rng.uniform(0.01, 100.0, size=(6, 4, 1))
    a, b = attraction_bound(views), attraction_bound(views * scales)
    for key in ("lhs", "rhs", "slack"):
        np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-12)


# --- repulsion: where it holds, where it fails, the log n term, ν ----------------------------------


def test_repulsion_holds_on_balanced_clusters_and_fails_for_large_nu():
    rng = np.random.default_rng(5)
    pool, pool_labels = clusters(rng, 4, 10, 3, 8, noise=0.3)
    anchor_views, anchor_labels = clusters(rng, 4, 5, 1, 8, noise=0.3)
    anchors = anchor_views[:, 0]
    summary = bound_summary(repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=5.0))
    assert summary["share_holds"] == 1.0 and summary["min_slack"] > 0
    # ν = 20 shrinks the right side twenty-fold: the check catches the violation
    out = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=5.0, nu=20.0)
    violated = bound_summary(out)
    assert violated["share_holds"] < 1 and violated["min_slack"] < 0


def test_repulsion_fails_on_an_unbalanced_pool():
    # anchor e1 of class 0; class 1 is a single image at e1, class 2 a thousand images at −e1
    pool = np.concatenate([[[[0.0, 0.0, 1.0]]], [[[1.0, 0.0, 0.0]]], np.tile([[[-1.0, 0.0, 0.0]]], (1000, 1, 1))])
    pool_labels = np.array([0, 1] + [2] * 1000)
    out = repulsion_bound(np.array([[1.0, 0.0, 0.0]]), [0], pool, pool_labels, alpha=10.0)
    assert out["lhs"][0] == pytest.approx(1.0)
    expected = (math.log((math.exp(10) + math.exp(0) + 1000 * math.exp(-10)) / 1002) + math.log(3)) / 10
    assert out["rhs"][0] == pytest.approx(expected, rel=1e-12)
    assert bound_summary(out)["min_slack"] < 0 and bound_summary(out)["share_holds"] == 0.0


def test_repulsion_sufficient_condition_on_unstructured_data():
    """Balanced pool, ν ≤ the norm of the maximising prototype, rhs ≥ 0 ⇒ lhs ≤ rhs (module docstring)."""
    rng = np.random.default_rng(6)
    pool = rng.standard_normal((12, 2, 5))
    pool_labels = np.repeat([0, 1, 2], 4)
    anchors, anchor_labels = rng.standard_normal((300, 5)), rng.integers(0, 3, 300)
    unit = pool / np.linalg.norm(pool, axis=-1, keepdims=True)
    nu = min(np.linalg.norm(unit[pool_labels == c].mean(axis=(0, 1))) for c in range(3))
    assert nu < 1
    out = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=1.0, nu=nu)
    assert (out["nearest_other_norm"] >= nu - 1e-15).all()
    positive = out["rhs"] >= 0
    assert positive.mean() > 0.5
    assert (out["slack"][positive] >= -1e-12).all()


def test_log_n_term_is_exact():
    rng = np.random.default_rng(7)
    pool, pool_labels = clusters(rng, 3, 4, 2, 6, noise=0.5)
    anchors = rng.standard_normal((5, 6))
    anchor_labels = np.array([0, 1, 2, 0, 1])
    for alpha, nu, n in [(2.0, 1.0, None), (0.5, 3.0, 7), (10.0, 0.25, 3)]:
        out = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=alpha, nu=nu, num_classes=n)
        assert (out["log_n_term"] == math.log(n or 3) / (nu * alpha)).all()
    base = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=2.0)
    more = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=2.0, num_classes=50)
    np.testing.assert_allclose(more["rhs"] - base["rhs"], (math.log(50) - math.log(3)) / 2.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(more["lhs"], base["lhs"])


def test_rhs_decreases_as_nu_grows_when_positive():
    rng = np.random.default_rng(8)
    pool, pool_labels = clusters(rng, 3, 5, 2, 6, noise=0.4)
    anchors, anchor_labels = rng.standard_normal((20, 6)), rng.integers(0, 3, 20)
    nus = [0.25, 0.5, 1.0, 2.0, 8.0]
    rhs = np.stack([repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=3.0, nu=nu)["rhs"] for nu in nus])
    scaled = rhs * np.array(nus)[:, None]
    np.testing.assert_allclose(scaled, np.broadcast_to(scaled[0], scaled.shape), rtol=0, atol=1e-12)  # rhs = B/ν
    positive = rhs[0] > 0
    assert positive.all()
    assert (np.diff(rhs[:, positive], axis=0) < 0).all()


def test_scale_invariance_of_repulsion():
    rng = np.random.default_rng(9)
    pool, pool_labels = clusters(rng, 3, 3, 2, 4, noise=0.5)
    anchors, anchor_labels = rng.standard_normal((6, 4)), rng.integers(0, 3, 6)
    a = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=4.0)
    b = repulsion_bound(
        anchors * rng.uniform(0.1, 10, (6, 1)), anchor_labels, pool * rng.uniform(0.1, 10, (9, 2, 1)), pool_labels, alpha=4.0
    )
    for key in ("lhs", "rhs", "slack"):
        np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-12)


# --- stability, chunking, summary ------------------------------------------------------------------


def test_large_alpha_is_finite():
    rng = np.random.default_rng(10)
    pool, pool_labels = clusters(rng, 3, 4, 3, 5, noise=0.5)
    anchors, anchor_labels = rng.standard_normal((8, 5)), rng.integers(0, 3, 8)
    out = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=1e3)
    for key in ("lhs", "rhs", "slack", "log_n_term"):
        assert np.isfinite(out[key]).all()
    # log mean exp ≤ max, and ≥ max − log M/α: the right side sits between these
    unit_a = anchors / np.linalg.norm(anchors, axis=1, keepdims=True)
    unit_p = pool / np.linalg.norm(pool, axis=-1, keepdims=True)
    top = np.einsum("ad,mrd->amr", unit_a, unit_p).max(axis=1).mean(axis=1) + math.log(3) / 1e3
    assert (out["rhs"] <= top + 1e-12).all() and (out["rhs"] >= top - math.log(12) / 1e3 - 1e-12).all()


@pytest.mark.parametrize("chunk", [1, 3])
def test_chunking_gives_identical_results(chunk):
    rng = np.random.default_rng(12)
    views = rng.standard_normal((10, 4, 6))
    a, b = attraction_bound(views), attraction_bound(views, chunk_size=chunk)
    pool, pool_labels = clusters(rng, 3, 4, 2, 6, noise=0.5)
    anchors, anchor_labels = rng.standard_normal((11, 6)), rng.integers(0, 3, 11)
    c = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=5.0, nu=0.5)
    d = repulsion_bound(anchors, anchor_labels, pool, pool_labels, alpha=5.0, nu=0.5, chunk_size=chunk)
    for x, y in ((a, b), (c, d)):
        assert x.keys() == y.keys()
        for key in x:
            np.testing.assert_allclose(x[key], y[key], rtol=0, atol=1e-12)


def test_bound_summary():
    s = bound_summary({"lhs": np.array([0.0, 1.0, 2.0, 3.0]), "rhs": np.array([1.0, 1.0, 1.0, 1.0])})
    assert s == {"mean_lhs": 1.5, "mean_rhs": 1.0, "mean_slack": -0.5, "share_holds": 0.5, "min_slack": -2.0, "points": 4}


# --- bad inputs -------------------------------------------------------------------------------------


def _repulsion_args():
    rng = np.random.default_rng(13)
    pool, pool_labels = clusters(rng, 3, 2, 2, 4, noise=0.5)
    return dict(
        anchors=rng.standard_normal((3, 4)), anchor_labels=np.array([0, 1, 2]), pool=pool, pool_labels=pool_labels, alpha=2.0
    )


@pytest.mark.parametrize(
    "change,match",
    [
        ({"alpha": 0.0}, "alpha.*0.0"),
        ({"alpha": -1.0}, "alpha.*-1.0"),
        ({"alpha": float("nan")}, "alpha.*nan"),
        ({"alpha": float("inf")}, "alpha.*inf"),
        ({"nu": 0.0}, "nu.*0.0"),
        ({"nu": float("inf")}, "nu.*inf"),
        ({"anchor_labels": np.array([0, 1, 9])}, r"anchor label.*\[9\]"),
        ({"pool_labels": np.zeros(6, dtype=int)}, r"at least 2 classes .*got 1"),
        ({"num_classes": 1}, "num_classes.*got 1"),
        ({"num_classes": 2}, "num_classes.*got 2"),
        ({"num_classes": 3.5}, "num_classes.*got 3.5"),
        ({"anchors": np.ones((3, 5))}, "dimension 4 differs from the anchors' 5"),
        ({"anchors": np.ones(4)}, r"anchors must have 2 dimensions, got shape \(4,\)"),
        ({"anchor_labels": np.array([0, 1])}, r"anchor_labels must have shape \(3,\), got \(2,\)"),
        ({"pool_labels": np.array([0, 1, 2])}, r"pool_labels must have shape \(6,\), got \(3,\)"),
        ({"pool": np.ones((6, 2, 4, 1))}, "pool must have 3 dimensions"),
        ({"anchors": np.zeros((3, 4))}, "anchors contains zero vectors"),
        ({"anchors": np.full((3, 4), np.nan)}, "anchors contains non-finite"),
        ({"chunk_size": 0}, "chunk_size.*got 0"),
    ],
)
def test_repulsion_rejects_bad_inputs(change, match):
    with pytest.raises(ValueError, match=match):
        repulsion_bound(**(_repulsion_args() | change))


def test_repulsion_rejects_a_zero_prototype():
    pool = np.array([[[1.0, 0.0]], [[-1.0, 0.0]], [[0.0, 1.0]], [[0.0, 1.0]]])
    with pytest.raises(ValueError, match=r"prototype of class\(es\) \[0\]"):
        repulsion_bound(np.ones((1, 2)), [1], pool, [0, 0, 1, 1], alpha=1.0)


@pytest.mark.parametrize(
    "views,kwargs,match",
    [
        (np.ones((3, 1, 4)), {}, "R >= 2.*R = 1"),
        (np.ones((3, 4)), {}, r"views must have 3 dimensions, got shape \(3, 4\)"),
        (np.ones((3, 2, 4)), {"chunk_size": -2}, "chunk_size.*got -2"),
        (np.array([[[1.0, 0.0], [-1.0, 0.0]]]), {}, r"zero vector for image\(s\) \[0\]"),
        (np.array([[[1.0, 0.0], [0.0, 0.0]]]), {}, "views contains zero vectors"),
    ],
)
def test_attraction_rejects_bad_inputs(views, kwargs, match):
    with pytest.raises(ValueError, match=match):
        attraction_bound(views, **kwargs)


def test_attraction_fails_exactly_where_a_view_points_away_from_its_mean_view():
    """Thm 4.4 on unit views holds at (x, t_r) iff f̄_r·m(x) ≥ 0 (the proof is in attraction_bound's docstring): views
    drawn so that some point away from their mean violate it exactly there and nowhere else."""
    rng = np.random.default_rng(0)
    views = torch.tensor(rng.normal(size=(200, 4, 3)) + np.array([0.3, 0.0, 0.0]))
    result = attraction_bound(views)
    unit = views / views.norm(dim=2, keepdim=True)
    away = (torch.einsum("nrd,nd->nr", unit, unit.mean(dim=1)) < 0).reshape(-1).numpy()
    assert 0 < away.sum() < away.size
    np.testing.assert_array_equal(result["lhs"] > result["rhs"] + 1e-12, away)
