"""The bad-config campaign (tests/workflow/config_campaign.py): every key of config.yaml mutated the ways a user's file goes
wrong, each refused before any job naming its key, or accepted for a reason reviewed here.

The run's own start goes through the same functions (validate_config when the Snakefile is read, then
preflight_problems in onstart); tests/workflow/test_pipeline.py runs a sample of these configs through snakemake itself."""

import re
from pathlib import Path

import pytest
from config_campaign import Mutation, mutations, outcome

from crlrepro.workflow.config import read_config_file

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_config_campaign")

ROOT = Path(__file__).resolve().parents[2]

_SEED = "a seed of 0 is a seed"
_FEWER_SEARCHED = "fewer scores searched (the power column shows what was found)"
_MEAN = "a component mean anywhere on the line (0 and negative included) is a mixture"
_NO_DECAY = "no weight decay (AdamW as Adam) is a recipe"
_ONE = "one value of a sweep: its rows are decided over that value alone (the smoke scale runs it)"
# Accepted mutations and why each is harmless. A change in either direction fails the test below: a mutation newly
# accepted must be reviewed here, and one newly refused taken out.
ACCEPTED = {
    "gmm.mean_x[0]=float:negative": _MEAN,
    "gmm.mean_x[0]=float:zero": _MEAN,
    "gmm.mean_y[0]=float:negative": _MEAN,
    "gmm.mean_y[0]=float:zero": _MEAN,
    "consistency.gmm.mean_x[0]=float:negative": _MEAN,
    "consistency.gmm.mean_x[0]=float:zero": _MEAN,
    "consistency.gmm.mean_y[0]=float:negative": _MEAN,
    "consistency.gmm.mean_y[0]=float:zero": _MEAN,
    "seeds[0]=int:zero": _SEED,
    "lcgm.mean_seed=int:zero": _SEED,
    "lcgm.spectrum.seed=int:zero": _SEED,
    "tsybakov.seed=int:zero": _SEED,
    "consistency.oracle.seed=int:zero": _SEED,
    "consistency.oce.seed=int:zero": _SEED,
    "consistency.calibration.seed=int:zero": _SEED,
    "consistency.calibration.search.seed=int:zero": _SEED,
    "consistency.calibration.search.widths=list:one": _FEWER_SEARCHED,
    "consistency.calibration.search.epsilons=list:one": _FEWER_SEARCHED,
    "consistency.scaling.rate_margin=float:zero": "no margin: a gap rate on its bound then says that no sample size decides it",
    "consistency.scaling.n_sweep.m=mapping:number": "one m for every regime (the smoke and paper configs' form)",
    "consistency.scaling.n_sweep.second_m=mapping:number": "one second m for every regime (the smoke and paper configs' form)",
    "consistency.scaling.n_sweep.second_m.scrl=int:null": "null: no second n sweep for SCRL (its C3.outer_m_free is not posed)",
    "consistency.scaling.n_sweep.second_m.sscrl=int:null": "null: no second n sweep for SSCRL (its C3.outer_m_free is not posed)",
    **{
        f"unreported_ranges.{key}=list:one": "one plausible value: the row is decided there when it is the configured one"
        for key in (
            "training.learning_rate",
            "training.weight_decay",
            "approximation.train_samples",
            "approximation.fresh_pairs",
            "lcgm.train_samples",
            "lcgm.noise_x",
            "lcgm.noise_y",
            "lcgm.separation",
        )
    },
    "unreported_ranges.training.weight_decay[0]=float:zero": _NO_DECAY,
    "approximation.polynomial.rate_margin=float:zero": "no margin: a rate on its bound then says that no sample size decides it",
    "approximation.polynomial.gammas=list:one": "one polynomial distribution: one row",
    "approximation.polynomial.confirm_gammas=list:empty": "no confirmatory γ: only the exploratory rows, whose margin only "
    "widens their undecided band",
    "approximation.polynomial.confirm_gammas=list:one": "one confirmatory γ: one row with the declared margin",
    "consistency.calibration.tsybakov_margin=float:zero": (
        "no margin: the row then says that no sample size decides it at its bound"
    ),
    "consistency.scaling.seeds[0]=int:zero": _SEED,
    "consistency.deviation.seed=int:zero": _SEED,
    "supervised_view.data.split_seed=int:zero": _SEED,
    "supervised_view.view_seed=int:zero": _SEED,
    "supervised_view.seeds[0]=int:zero": _SEED,
    "training.weight_decay=float:zero": _NO_DECAY,
    "consistency.scaling.weight_decay=float:zero": _NO_DECAY,
    "supervised_view.weight_decay=float:zero": _NO_DECAY,
    "seeds=list:one": "one seed: intervals over seeds are not formed and the rows say so (the smoke scale runs one)",
    "supervised_view.seeds=list:one": "one seed: the direction rows are inconclusive for want of seeds, and say so",
    "approximation.convergence_samples=list:one": "one smaller size is the study's least (it compares it with train_samples)",
    "approximation.dims=list:one": _ONE,
    "approximation.support_widths=list:one": "the one width is the reference",
    "lcgm.spectrum.noise_factors=list:one": _ONE,
    "lcgm.sensitivity.noise_y=list:one": _ONE,
    "lcgm.sensitivity.separation=list:one": _ONE,
    "lcgm.sensitivity.elbow_dims=list:one": _ONE,
    "tsybakov.other_windows=list:one": _ONE,
    "tsybakov.exact.window_widths=list:one": _ONE,
    "consistency.oce.ms=list:one": _ONE,
    "consistency.oce.taus=list:one": _ONE,
    "consistency.calibration.families.perturbations=list:one": _ONE,
    "consistency.scaling.regimes=list:one": "one regime: the rows comparing SCRL with SSCRL are not formed, the others are",
    "supervised_view.few_labels=list:one": _ONE,
    "supervised_view.loss_variants=list:one": _ONE,
    "lcgm.sensitivity.elbow_dims=list:empty": "no elbow sweep",
    "tsybakov.other_windows=list:empty": "no further windows",
    "consistency.calibration.families.perturbations=list:empty": "the unperturbed families only (their own rows)",
    "supervised_view.loss_variants=list:empty": "S1 without the variant rows (diagnostics; the paper gives no number)",
    "approximation.support_widths[0]=int:fraction": "a half-width is any positive number of standard deviations",
    "tsybakov.exact.window_widths[0]=int:fraction": "a window width is any positive number of decades",
    "lcgm.spectrum.z=float:zero": "z = 0: a direction counts on its estimate alone (a diagnostic row's margin)",
    "consistency.calibration.regret_floor=float:zero": "no regret is left out of the exponent fit (the schema's minimum)",
    "approximation.num_eigenvalues=int:huge": "at most the eigenvalues computed are written (NOT_SIZES)",
    "consistency.calibration.families.tail=int:huge": "the fit uses at most the members there are (NOT_SIZES)",
    "consistency.scaling.batch_size=int:huge": "capped at each point's n, as the trainer caps it (NOT_SIZES)",
    "supervised_view.views=int:huge": "sizes the bank only, which augment: base does not build (sized when it does)",
    "supervised_view.data.root=str:empty": "digits come with scikit-learn: root is not read",
    "supervised_view.data.root=str:unknown": "digits come with scikit-learn: root is not read",
    "scale=str:unknown": "any name of the pattern is a scale name: it only names docs/results/<scale>/ for `snakemake publish`",
}


@pytest.fixture(scope="module")
def campaign() -> list[tuple[Mutation, str | None]]:
    return [(m, outcome(m, ROOT)) for m in mutations(read_config_file(ROOT / "config.yaml"))]


def test_the_campaign_covers_every_key_of_the_defaults(campaign):
    """Each leaf of config.yaml is mutated (a list's first item too), and every kind of change occurs."""
    keys = {m.key for m, _ in campaign}
    defaults = read_config_file(ROOT / "config.yaml")
    assert {
        "tau",
        "lcgm.spectrum.samples",
        "consistency.scaling.m_sweep.ms[0]",
        "supervised_view.data.name",
        "figures.style.dpi",
        "<top level>",
    } <= keys
    assert len(campaign) > 20 * len(defaults)
    kinds = {m.what for m, _ in campaign}
    assert {"int:huge", "float:nan", "str:unknown", "bool:word", "list:repeated", "mapping:unknown-key", "misspelt"} <= kinds


def test_every_mutation_is_refused_naming_its_key_or_accepted_for_a_reviewed_reason(campaign):
    accepted = {m.id for m, message in campaign if message is None}
    assert accepted - set(ACCEPTED) == set(), "accepted without review"
    assert set(ACCEPTED) - accepted == set(), "reviewed as accepted, now refused: take them out of ACCEPTED"
    unnamed = []
    for m, message in campaign:
        if message is None:
            continue
        if m.key == "<top level>":
            (name,) = m.file  # the unknown or misspelt key is named
            named = repr(name) in message or name in message
        else:
            list_key = re.sub(r"\[\d+\]$", "", m.key)  # an item's problem may be stated of its list
            named = m.key in message or list_key in message
        if not named:
            unnamed.append((m.id, message))
    assert unnamed == []


def test_a_refusal_can_fail_the_campaign(campaign):
    """The check above fails for a refusal that does not name the key, and for an unreviewed acceptance."""
    mutation = Mutation("tau", "float:huge", {"tau": 1e12})
    message = outcome(mutation, ROOT)
    assert message is not None and "tau: 1e+12 is past ±1e+06" in message
    assert "gmm.mean_x" not in message
    accepted = outcome(Mutation("tau", "float:small", {"tau": 0.25}), ROOT)
    assert accepted is None and "tau=float:small" not in ACCEPTED
