"""The trainer: determinism, non-finite losses, checkpoints, and kill-and-resume."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace

import pytest
import torch

from crlrepro.experiments.approximation import train_gmm_two_tower
from crlrepro.learning import train as train_module
from crlrepro.learning.losses import info_nce_in_batch
from crlrepro.learning.networks import TwoTower, TwoTowerEnsemble
from crlrepro.learning.train import (
    NonFiniteLossError,
    TrainSettings,
    full_precision,
    native_bfloat16,
    require_one_precision,
    resolve_precision,
    train,
)
from crlrepro.runtime.artifacts import ArtifactError, load_torch, sidecar_path
from crlrepro.theory.gmm import LatentClassGMM

GMM = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
SETTINGS = TrainSettings(epochs=3, batch_size=128, learning_rate=1e-3, weight_decay=0.01, seed=0, name="test")


def run(seed=0, **kwargs):
    model, history = train_gmm_two_tower(GMM, 2, seed, 0.5, 2048, SETTINGS, hidden=32, **kwargs)
    return model, history


def same_weights(a, b):
    return all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_deterministic_on_cpu_and_seed_sensitive():
    (a, ha), (b, hb), (c, _) = run(0), run(0), run(1)
    assert same_weights(a, b) and ha == hb
    assert not same_weights(a, c)


def test_training_lowers_the_loss():
    _, history = run(0)
    assert history[-1]["loss"] < history[0]["loss"]
    assert [h["epoch"] for h in history] == [1, 2, 3]


def test_non_finite_loss_names_experiment_seed_and_step():
    model = TwoTower(1, 1, 2, hidden=8)
    calls = {"n": 0}

    def exploding(model, batch, rng):
        calls["n"] += 1
        out = model.f(batch[0]).sum()
        return out * float("nan") if calls["n"] == 5 else out

    settings = TrainSettings(epochs=2, batch_size=4, learning_rate=1e-3, weight_decay=0.0, seed=7, name="A9 D=2")
    with pytest.raises(NonFiniteLossError, match=r"A9 D=2: loss is nan at epoch 0, step 4 .* seed 7"):
        train(model, exploding, [torch.randn(32, 1)], settings)


class Interrupted(Exception):
    pass


def _stop_after(epochs):
    def on_epoch(epoch, model):
        if epoch == epochs:
            raise Interrupted  # before that epoch's checkpoint: the last one kept is epochs - 1

    return on_epoch


def test_checkpoint_of_other_settings_is_not_resumed(tmp_path):
    ckpt = tmp_path / "m.pt"
    with pytest.raises(Interrupted):
        run(0, checkpoint=ckpt, fingerprint="a", on_epoch=_stop_after(3))
    assert load_torch(ckpt)["epoch"] == 2
    (fresh, h_fresh), (other, h_other) = run(0), run(0, checkpoint=ckpt, fingerprint="b")
    assert same_weights(fresh, other) and h_fresh == h_other  # trained from scratch, not resumed


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "drop the sidecar", "not a torch file"])
def test_a_damaged_checkpoint_is_set_aside_and_training_starts_afresh(tmp_path, damage, caplog):
    ckpt = tmp_path / "m.pt"
    with pytest.raises(Interrupted):
        run(0, checkpoint=ckpt, fingerprint="a", on_epoch=_stop_after(3))
    data = bytearray(ckpt.read_bytes())
    if damage == "flip a byte":
        data[len(data) // 2] ^= 0x01
        ckpt.write_bytes(bytes(data))
    elif damage == "truncate":
        ckpt.write_bytes(bytes(data[: len(data) // 3]))
    elif damage == "drop the sidecar":
        sidecar_path(ckpt).unlink()
    else:
        ckpt.write_text("not a checkpoint")
    (fresh, h_fresh), (again, h_again) = run(0), run(0, checkpoint=ckpt, fingerprint="a")
    assert same_weights(fresh, again) and h_fresh == h_again  # from scratch, not from the damaged state
    assert (tmp_path / "m.pt.set-aside").exists() and "set aside" in caplog.text and str(ckpt) in caplog.text


def test_a_finished_run_leaves_no_checkpoint_so_a_rerun_trains_afresh(tmp_path):
    """A rule reruns after its code changed: the run must train again, not return the finished state."""
    ckpt = tmp_path / "m.pt"
    calls = []
    run(0, checkpoint=ckpt, fingerprint="a")
    assert not ckpt.exists() and not sidecar_path(ckpt).exists()
    run(0, checkpoint=ckpt, fingerprint="a", on_epoch=lambda epoch, model: calls.append(epoch))
    assert calls == [0, 1, 2, 3]  # every epoch again, from the initial model


TRAINING_SCRIPT = textwrap.dedent(
    """
    import logging, sys, time, torch
    logging.basicConfig(level=logging.INFO)
    from crlrepro.experiments.approximation import train_gmm_two_tower
    from crlrepro.theory.gmm import LatentClassGMM
    from crlrepro.learning.train import TrainSettings
    import crlrepro.learning.train as train_module

    slow = len(sys.argv) > 3
    if slow:  # pause after every epoch so that the test can kill the process mid-training
        original = train_module.save_torch
        def pausing(payload, path, prov=None):
            original(payload, path, prov); time.sleep(1.0)
        train_module.save_torch = pausing
    gmm = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
    settings = TrainSettings(epochs=6, batch_size=128, learning_rate=1e-3, weight_decay=0.01, seed=3, name="resume")
    model, history = train_gmm_two_tower(gmm, 2, 3, 0.5, 4096, settings, hidden=32, checkpoint=sys.argv[1])
    from crlrepro.learning.networks import save_two_tower
    save_two_tower(model, sys.argv[2], history=history)
    """
)


def test_killed_training_resumes_from_its_last_checkpoint(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(TRAINING_SCRIPT)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    reference = tmp_path / "reference.pt"
    subprocess.run([sys.executable, str(script), str(tmp_path / "ref_ckpt.pt"), str(reference)], check=True, env=env)

    ckpt, result = tmp_path / "ckpt.pt", tmp_path / "result.pt"
    proc = subprocess.Popen([sys.executable, str(script), str(ckpt), str(result), "slow"], env=env)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if ckpt.exists() and load_torch(ckpt)["epoch"] >= 2:
                break
        except ArtifactError:  # between the checkpoint and its sidecar being replaced
            pass
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = load_torch(ckpt)["epoch"]
    assert 2 <= killed_at < 6 and not result.exists()

    rerun = subprocess.run(
        [sys.executable, str(script), str(ckpt), str(result)], check=True, env=env, capture_output=True, text=True
    )
    assert f"resuming from {ckpt} after epoch {killed_at}" in rerun.stderr  # not retrained from scratch
    # the same model, history and bytes as a run that was never interrupted
    assert result.read_bytes() == reference.read_bytes()
    assert load_torch(result)["history"] == load_torch(reference)["history"]


def test_two_tower_batched_pass_equals_the_separate_towers():
    torch.manual_seed(0)
    model = TwoTower(3, 3, 4, hidden=16, layers=3).double()
    x, y = torch.randn(10, 3, dtype=torch.float64), torch.randn(10, 3, dtype=torch.float64)
    fx, gy = model(x, y)
    torch.testing.assert_close(fx, model.f(x), rtol=1e-14, atol=1e-14)
    torch.testing.assert_close(gy, model.g(y), rtol=1e-14, atol=1e-14)
    # the towers are independent: g does not depend on f's parameters
    model.weights[0].data[0].zero_()
    torch.testing.assert_close(model.g(y), gy, rtol=0, atol=0)
    assert not torch.allclose(model.f(x), fx)
    # unequal input dimensions and row counts take the separate path
    other = TwoTower(2, 5, 3, hidden=8, layers=1)
    assert [t.shape for t in other(torch.randn(4, 2), torch.randn(6, 5))] == [(4, 3), (6, 3)]


def test_fresh_pairs_every_epoch_are_deterministic_differ_from_a_fixed_sample_and_resume(tmp_path):
    (a, ha), (b, hb), (fixed, _) = run(0, fresh=True), run(0, fresh=True), run(0)
    assert same_weights(a, b) and ha == hb
    assert not same_weights(a, fixed)  # epochs 2 and 3 saw other pairs
    # a run stopped after epoch 2 and resumed reaches the same model: epoch 3's pairs depend on the epoch alone
    ckpt = tmp_path / "ckpt.pt"
    two = TrainSettings(**{**SETTINGS.__dict__, "epochs": 3})
    seen = []

    def stop_after_two(epoch, model):
        seen.append(epoch)
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, two, hidden=32, fresh=True, checkpoint=ckpt, on_epoch=stop_after_two)
    resumed, history = train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, two, hidden=32, fresh=True, checkpoint=ckpt)
    assert same_weights(resumed, a) and history == ha


def test_a_data_function_of_the_wrong_length_fails_naming_the_epoch():
    model = TwoTower(1, 1, 2, hidden=8, layers=2)
    data = lambda epoch: [torch.zeros(256 if epoch == 0 else 200, 1)] * 2  # noqa: E731
    with pytest.raises(ValueError, match="epoch 1's data tensors have shapes"):
        train(
            model,
            lambda m, batch, rng: m.f(batch[0]).sum() * 0.0 + m.g(batch[1]).sum() * 0.0,
            data,
            TrainSettings(epochs=2, batch_size=128, learning_rate=1e-3, weight_decay=0.0, seed=0, name="t"),
        )


def test_training_records_count_the_work_of_a_step_and_leave_the_results_unchanged(tmp_path, monkeypatch):
    plain, plain_history = run(0)
    monkeypatch.setenv("CRLREPRO_TRAINING_STATS", str(tmp_path))
    monkeypatch.setenv("CRLREPRO_JOB", "gmm_mlp_train/D=2,seed=0")
    recorded, recorded_history = run(0)
    assert same_weights(plain, recorded) and plain_history == recorded_history  # counting and profiling change nothing
    (path,) = tmp_path.glob("*.json")
    record = __import__("json").loads(path.read_text())
    # The matmuls of one step of this model (1-D inputs, width 32, D = 2, batch 128, both towers stacked),
    # forward 2·rows·in·out each, backward twice that, except the input layers' (no gradient for the data):
    b, h, d = 128, 32, 2
    forward = 2 * (2 * b * 1 * h) + 2 * (2 * b * h * h) + 2 * (2 * b * h * d) + 2 * b * d * b
    assert record["flops_per_step"] == 3 * forward - 2 * (2 * b * 1 * h)
    assert record["steps"] == SETTINGS.epochs * (2048 // 128) and record["timed_steps"] == record["steps"] - 2
    assert record["job"] == "gmm_mlp_train/D=2,seed=0" and record["seed"] == 0
    assert 0 < record["matmul_time_share"] < 1 and record["timed_steps_s"] > 0 and record["before_first_step_s"] > 0


# --- batched ensembles: M members stacked along a leading dimension, one optimiser step for all ------------------

ENSEMBLE_SEEDS = [3, 0, 7]
ENSEMBLE_SETTINGS = TrainSettings(epochs=3, batch_size=64, learning_rate=3e-3, weight_decay=0.01, seed=0, name="ensemble")


def _member_data(seed):
    generator = torch.Generator().manual_seed(100 + seed)  # each member its own sample
    x = torch.randn(512, 1, generator=generator)
    return x, x + 0.5 * torch.randn(512, 1, generator=generator)


def _alone(seed, batch_loss=None):
    torch.manual_seed(seed)
    model = TwoTower(1, 1, 2, hidden=16, layers=2)
    loss = batch_loss or (lambda model, batch, rng: info_nce_in_batch(*model(*batch), 0.5))
    history = train(model, loss, list(_member_data(seed)), replace(ENSEMBLE_SETTINGS, seed=seed))
    return model, history


def _together(checkpoint=None, on_epoch=None, batch_loss=None, seeds=ENSEMBLE_SEEDS):
    members = []
    for seed in seeds:  # each member initialised as it would be alone
        torch.manual_seed(seed)
        members.append(TwoTower(1, 1, 2, hidden=16, layers=2))
    model = TwoTowerEnsemble(members)
    data = [torch.stack(tensors) for tensors in zip(*(_member_data(seed) for seed in seeds), strict=True)]
    loss = batch_loss or (lambda model, batch, rng: info_nce_in_batch(*model(*batch), 0.5))
    history = train(
        model, loss, data, ENSEMBLE_SETTINGS, checkpoint=checkpoint, fingerprint="e", on_epoch=on_epoch, members=seeds
    )
    return model, history


def test_each_ensemble_member_sees_the_batches_it_would_see_alone():
    def recorder(seen):
        def batch_loss(model, batch, rng):
            seen.append(batch[0][..., 0].clone())
            return info_nce_in_batch(*model(*batch), 0.5)

        return batch_loss

    together = []
    _together(batch_loss=recorder(together))
    for k, seed in enumerate(ENSEMBLE_SEEDS):
        alone = []
        _alone(seed, recorder(alone))
        assert len(alone) == len(together) and all(torch.equal(a, t[k]) for a, t in zip(alone, together, strict=True))


def test_an_ensemble_trains_each_member_as_alone_deterministically():
    (model, histories), (again, histories_again) = _together(), _together()
    assert same_weights(model, again) and histories == histories_again  # byte-identical between runs
    for k, seed in enumerate(ENSEMBLE_SEEDS):
        alone, history = _alone(seed)
        # the same training up to the last bits of a batched vs a plain matmul kernel
        assert [h["loss"] for h in histories[k]] == pytest.approx([h["loss"] for h in history], rel=1e-4, abs=1e-6)
        # (Adam turns last-bit gradient differences of near-zero coordinates into steps of up to the learning rate)
        for p, q in zip(model.member(k).state_dict().values(), alone.state_dict().values(), strict=True):
            assert torch.allclose(p, q, atol=1e-2)
    assert not torch.allclose(model.member(0).weights[0], model.member(1).weights[0])  # the members differ


def test_a_killed_ensemble_resumes_every_member_from_its_last_epoch(tmp_path):
    ckpt = tmp_path / "ensemble.pt"
    with pytest.raises(Interrupted):
        _together(checkpoint=ckpt, on_epoch=_stop_after(2))
    assert load_torch(ckpt)["epoch"] == 1 and len(load_torch(ckpt)["history"]) == len(ENSEMBLE_SEEDS)
    (resumed, h_resumed), (fresh, h_fresh) = _together(checkpoint=ckpt), _together()
    assert same_weights(resumed, fresh) and h_resumed == h_fresh and not ckpt.exists()


def test_a_non_finite_loss_in_one_member_names_its_seed():
    def batch_loss(model, batch, rng):
        losses = info_nce_in_batch(*model(*batch), 0.5)
        return losses * torch.tensor([1.0, float("inf"), 1.0])

    with pytest.raises(NonFiniteLossError, match=r"seed 0\b"):  # the second member's seed
        _together(batch_loss=batch_loss)


def test_ensemble_data_of_the_wrong_member_count_fails_before_training():
    model = TwoTowerEnsemble([TwoTower(1, 1, 2, hidden=8) for _ in range(2)])
    with pytest.raises(ValueError, match=r"expected \[3 members, 512 samples"):
        train(
            model,
            lambda m, b, r: info_nce_in_batch(*m(*b), 0.5),
            [torch.zeros(2, 512, 1)] * 2,
            ENSEMBLE_SETTINGS,
            members=[0, 1, 2],
        )


def test_lars_is_refused_for_an_ensemble_whose_norms_it_would_mix():
    model = TwoTowerEnsemble([TwoTower(1, 1, 2, hidden=8) for _ in range(2)])
    with pytest.raises(ValueError, match="LARS's trust ratio"):
        train(
            model,
            lambda m, b, r: info_nce_in_batch(*m(*b), 0.5),
            [torch.zeros(2, 512, 1)] * 2,
            replace(ENSEMBLE_SETTINGS, optimizer="lars"),
            members=[0, 1],
        )


# --- the compile switch (crlrepro.learning.train.use_compiler) ------------------------------------------------------------------


def test_the_compile_switch_decides_by_mode_length_and_compiler(monkeypatch, caplog):
    from crlrepro.learning import train as trainer

    caplog.set_level("INFO", logger="crlrepro.learning.train")
    monkeypatch.setattr(trainer, "cxx_compiler", lambda: "/usr/bin/g++")
    assert trainer.use_compiler(True, 1) and trainer.use_compiler("on", 1)
    assert not trainer.use_compiler(False, 10**9) and not trainer.use_compiler("off", 10**9)
    assert not trainer.use_compiler("auto", trainer.COMPILE_MIN_STEPS - 1)
    assert "fewer than" in caplog.text
    assert trainer.use_compiler("auto", trainer.COMPILE_MIN_STEPS)
    for bad in ("yes", 1, 0, None, "AUTO"):
        with pytest.raises(ValueError, match="compile must be auto, true .on. or false .off.; got"):
            trainer.use_compiler(bad, 1, name="A2 D=3")
    monkeypatch.setattr(trainer, "cxx_compiler", lambda: None)
    caplog.clear()
    assert not trainer.use_compiler("auto", 10**9)
    assert "no C++ compiler" in caplog.text
    with pytest.raises(RuntimeError, match="A2 D=3: compile: true, but no C\\+\\+ compiler"):
        trainer.use_compiler(True, 1, name="A2 D=3")
    # on a GPU inductor generates Triton code, not C++: no C++ compiler is needed there
    assert trainer.use_compiler("auto", 10**9, device="cuda")


@pytest.mark.skipif(
    __import__("crlrepro.learning.train", fromlist=["cxx_compiler"]).cxx_compiler() is None,
    reason="no C++ compiler for torch.compile on the CPU",
)
def test_a_compiled_training_matches_the_eager_one_to_rounding_and_repeats_to_the_bit():
    compiled = replace(SETTINGS, compile=True, epochs=2)
    (a, ha), (b, hb) = (train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, compiled, hidden=32) for _ in range(2))
    eager, he = train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, replace(compiled, compile=False), hidden=32)
    assert same_weights(a, b) and ha == hb  # deterministic
    # 32 AdamW steps amplify rounding where a gradient is near 0 (Adam divides by its root mean square), so the
    # weights agree loosely and the losses closely; one step's loss and gradient agree to float32 rounding.
    for p, q in zip(a.state_dict().values(), eager.state_dict().values(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-2, atol=1e-3)
    assert [h["loss"] for h in ha] == pytest.approx([h["loss"] for h in he], rel=1e-4)
    x, y = (torch.randn(256, 1) for _ in range(2))
    step = lambda m, batch, rng: info_nce_in_batch(*m(*batch), 0.5)  # noqa: E731
    values = []
    for loss in (step, torch.compile(step, dynamic=False)):
        a.zero_grad()
        value = loss(a, (x, y), None)
        value.backward()
        values.append((value.detach(), [p.grad.clone() for p in a.parameters()]))
    torch.testing.assert_close(values[0][0], values[1][0], rtol=1e-5, atol=1e-6)
    for g, h in zip(values[0][1], values[1][1], strict=True):
        torch.testing.assert_close(g, h, rtol=1e-4, atol=1e-6)


def test_bfloat16_runs_the_forward_pass_in_bfloat16_and_the_loss_in_float32():
    from crlrepro.learning.train import full_precision

    seen = {}

    def batch_loss(model, batch, rng):
        x, y = batch
        fx, gy = model(x, y)
        seen["forward"] = fx.dtype
        (fx, gy), exact = full_precision(fx, gy)
        with exact:
            scores = fx @ gy.T
            seen["scores"] = scores.dtype
            return info_nce_in_batch(fx, gy, 0.5)

    x, y = (torch.randn(256, 1) for _ in range(2))
    for precision, forward in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        torch.manual_seed(0)
        model = TwoTower(1, 1, 2, hidden=16)
        history = train(model, batch_loss, [x, y], replace(SETTINGS, epochs=2, precision=precision))
        assert seen == {"forward": forward, "scores": torch.float32}
        assert all(p.dtype == torch.float32 for p in model.parameters())  # master weights stay float32
        assert history[-1]["loss"] < history[0]["loss"] + 0.05


def test_bfloat16_training_agrees_with_float32_to_its_rounding_not_to_the_bit():
    a, ha = train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, SETTINGS, hidden=32)
    b, hb = train_gmm_two_tower(GMM, 2, 0, 0.5, 2048, replace(SETTINGS, precision="bfloat16"), hidden=32)
    assert not same_weights(a, b)
    losses = [h["loss"] for h in ha], [h["loss"] for h in hb]
    assert losses[1] == pytest.approx(losses[0], abs=0.02)


def test_an_unknown_precision_fails_before_any_work_naming_it():
    def batch_loss(model, batch, rng):
        raise AssertionError("no step may run")

    with pytest.raises(ValueError, match="precision must be one of float32, bfloat16, auto; got 'float16'"):
        train(TwoTower(1, 1, 2, hidden=8), batch_loss, [torch.randn(64, 1)] * 2, replace(SETTINGS, precision="float16"))


@pytest.mark.parametrize("native", [True, False])
def test_auto_precision_is_bfloat16_where_native_and_float32_elsewhere_and_the_run_records_it(monkeypatch, tmp_path, native):
    monkeypatch.setattr(train_module, "native_bfloat16", lambda device="cpu": native)
    expected = "bfloat16" if native else "float32"
    assert resolve_precision("auto", "cpu") == expected
    assert resolve_precision("float32", "cpu") == "float32" and resolve_precision("bfloat16", "cpu") == "bfloat16"
    seen = {}

    def batch_loss(model, batch, rng):
        fx, gy = model(*batch)
        seen["forward"] = fx.dtype
        (fx, gy), exact = full_precision(fx, gy)
        with exact:
            return info_nce_in_batch(fx, gy, 0.5)

    x, y = (torch.randn(128, 1) for _ in range(2))
    checkpoint = tmp_path / "run.pt"
    with pytest.raises(Interrupted):  # stopped after epoch 1 of 3, its checkpoint kept
        settings = replace(SETTINGS, epochs=3, precision="auto")
        train(TwoTower(1, 1, 2, hidden=8), batch_loss, [x, y], settings, checkpoint=checkpoint, on_epoch=_stop_after(2))
    assert seen["forward"] == (torch.bfloat16 if native else torch.float32)
    # the checkpoint names the arithmetic used, not "auto": on a machine that resolves auto otherwise it is not resumed
    assert f"('precision', '{expected}')" in load_torch(checkpoint)["fingerprint"]


def test_models_trained_in_different_arithmetic_are_refused_naming_each_and_the_retraining_command():
    paths = [f"results/x/models/lcgm/seed{i}_D2.pt" for i in range(5)]
    assert require_one_precision(["float32"] * 5, paths) == "float32"
    assert require_one_precision([None] * 5, paths) is None  # files older than the field: nothing to compare
    with pytest.raises(ArtifactError) as caught:
        require_one_precision(["float32", "bfloat16", "float32", "float32", "float32"], paths)
    message = str(caught.value)
    assert "bfloat16 (1): results/x/models/lcgm/seed1_D2.pt" in message and "float32 (4): " in message and " …" in message
    assert message.endswith("--forcerun " + " ".join(paths))  # every model retrained, on the machine that runs it
    with pytest.raises(ArtifactError, match="None"):  # an unrecorded arithmetic beside a recorded one is not assumed equal
        require_one_precision(["float32", None, "float32", "float32", "float32"], paths)


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ({"avx2": True}, False),  # this project's AVX2 EPYC: emulated
        ({"avx512_f": True, "avx512_bw": True}, False),  # AVX-512 without BF16: oneDNN converts, not counted
        ({"avx512_f": True, "avx512_bf16": True}, True),
        ({"amx_tile": True, "amx_bf16": True}, True),
    ],
)
def test_native_bfloat16_on_x86_needs_avx512_bf16_or_amx(monkeypatch, flags, native):
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: {"architecture": "x86_64", **flags})
    assert native_bfloat16("cpu") is native
    assert native_bfloat16("meta") is False  # no arithmetic at all


def test_native_bfloat16_on_cuda_does_not_count_emulation(monkeypatch):
    import contextlib

    asked = {}

    def is_bf16_supported(including_emulation=True):
        asked["including_emulation"] = including_emulation
        return including_emulation  # a pre-Ampere card: only by emulation

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", is_bf16_supported)
    assert native_bfloat16("cuda:1") is False and asked == {"including_emulation": False}
