import json
import os

import pandas as pd
import pytest
import torch

from crlrepro.runtime import artifacts
from crlrepro.runtime.artifacts import (
    ArtifactError,
    load_torch,
    read_json,
    read_table,
    save_torch,
    sidecar_path,
    write_artifact_json,
    write_table,
)


def test_atomic_write_leaves_nothing_when_interrupted(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("old complete content\n")
    with pytest.raises(RuntimeError), artifacts.atomic_path(target) as tmp:
        tmp.write_text("half writ")
        raise RuntimeError("killed")
    assert target.read_text() == "old complete content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_table_and_provenance(tmp_path):
    table = pd.DataFrame({"D": [1, 2], "value": [0.1, 1 / 3]})
    prov = artifacts.provenance(config={"tau": 0.5}, params={"dims": [1, 2]}, rule="r", seed=7, device="cpu", threads=2)
    artifacts.write_table(table, tmp_path / "t.csv", prov)
    first = (tmp_path / "t.csv").read_bytes()
    assert pd.read_csv(tmp_path / "t.csv")["value"].tolist() == [0.1, 1 / 3]  # round-trips exactly
    sidecar = json.loads((tmp_path / "t.provenance.json").read_text())
    assert sidecar["artifact"] == "t.csv" and sidecar["seed"] == 7 and sidecar["device"] == "cpu"
    assert sidecar["config_hash"] == artifacts.config_hash({"tau": 0.5})
    assert sidecar["packages"]["numpy"] and sidecar["packages"]["python"]
    artifacts.write_table(table, tmp_path / "t.csv", prov)
    assert (tmp_path / "t.csv").read_bytes() == first


def test_save_torch_is_atomic_and_byte_reproducible(tmp_path):
    import torch

    from crlrepro.runtime.artifacts import save_torch

    payload = {"weights": torch.arange(6.0).reshape(2, 3), "note": "x"}
    save_torch(payload, tmp_path / "a.pt")
    save_torch(payload, tmp_path / "sub" / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "sub" / "b.pt").read_bytes()
    assert torch.equal(torch.load(tmp_path / "a.pt")["weights"], payload["weights"])
    assert not list(tmp_path.glob(".*.tmp"))


# Integrity: every artifact's sidecar holds its checksum, checked where the file is read ----------------


def test_tables_json_and_torch_artifacts_round_trip_through_their_checksums(tmp_path):
    write_table(pd.DataFrame({"a": [1.5, 2.0]}), tmp_path / "t.csv", {"rule": "make_t"})
    assert len(json.loads((tmp_path / "t.provenance.json").read_text())["sha256"]) == 64
    assert read_table(tmp_path / "t.csv")["a"].tolist() == [1.5, 2.0]
    write_artifact_json({"x": 1}, tmp_path / "r.json", {"rule": "make_r"})
    assert read_json(tmp_path / "r.json") == {"x": 1}
    save_torch({"w": torch.arange(3.0), "note": "plain", "n": [1, 2]}, tmp_path / "m.pt", {"rule": "make_m"})
    loaded = load_torch(tmp_path / "m.pt")
    assert torch.equal(loaded["w"], torch.arange(3.0)) and loaded["note"] == "plain"


@pytest.mark.parametrize("damage", ["flip one bit", "truncate", "drop the sidecar", "delete"])
def test_a_damaged_artifact_stops_with_its_path_and_how_to_rebuild_it(tmp_path, damage, monkeypatch):
    monkeypatch.setenv("CRLREPRO_CONFIGFILES", "configs/smoke.yaml")  # the workflow names its run's config files
    path = tmp_path / "m.pt"
    save_torch({"w": torch.ones(64)}, path, {"rule": "gmm_mlp_train"})
    data = bytearray(path.read_bytes())
    if damage == "flip one bit":
        data[len(data) // 2] ^= 0x04
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(bytes(data[:100]))
    elif damage == "drop the sidecar":
        sidecar_path(path).unlink()
    else:
        path.unlink()
    with pytest.raises(ArtifactError) as error:
        load_torch(path)
    # The advice is Snakemake's --forcerun of the file, with the run's config files: it rebuilds the file and what
    # is computed from it, deleted or not (the pipeline test follows it literally).
    assert str(error.value).startswith(f"{path}: ")
    assert str(error.value).endswith(f"snakemake --cores all --configfile configs/smoke.yaml --forcerun {path}")
    assert "delete" not in str(error.value)


def test_a_table_edited_after_it_was_written_is_refused(tmp_path):
    write_table(pd.DataFrame({"a": [1.0]}), tmp_path / "t.csv", {"rule": "make_t"})
    (tmp_path / "t.csv").write_text("a\n2.0\n")
    with pytest.raises(ArtifactError, match="does not match the checksum"):
        read_table(tmp_path / "t.csv")


class _Payload:
    """A pickle that runs a command when loaded (what a crafted checkpoint could hold)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_that_would_run_code_is_refused_not_executed(tmp_path):
    marker, path = tmp_path / "ran", tmp_path / "evil.pt"
    save_torch({"model": _Payload(marker)}, path, {"rule": "x"})  # its checksum is valid: only the loader can stop it
    with pytest.raises(ArtifactError, match="refused"):
        load_torch(path)
    assert not marker.exists()
    # the same file through each loader the pipeline uses
    from crlrepro.learning.images import load_views
    from crlrepro.learning.networks import load_two_tower

    for loader in (load_two_tower, load_views):
        with pytest.raises(ArtifactError, match="refused"):
            loader(path)
    assert not marker.exists()


def test_a_reader_of_several_artifacts_refuses_any_set_but_the_expected_one(monkeypatch):
    from crlrepro.runtime.artifacts import require_exact_set

    monkeypatch.delenv("CRLREPRO_CONFIGFILES", raising=False)
    grid = [[1.0, 3.0, 2], [1.0, 3.0, 4], [2.0, 3.0, 4]]
    require_exact_set(list(reversed(grid)), grid, "models", ["a.pt"])  # the order read does not matter
    for found, named in (
        (grid[1:], "missing [[1.0, 3.0, 2]], unexpected []"),
        (grid + [[2.0, 3.0, 6]], "missing [], unexpected [[2.0, 3.0, 6]]"),
        (grid[:2] + [grid[0]], "missing [[2.0, 3.0, 4]], unexpected [], duplicated ['[1.0, 3.0, 2]']"),
    ):
        with pytest.raises(ArtifactError) as error:
            require_exact_set(found, grid, "models (noise_y, separation, D)", ["m/a.pt", "m/b.pt"])
        assert named in str(error.value)
        assert str(error.value).endswith("rebuild them: snakemake --cores all --forcerun m/a.pt m/b.pt")


def test_git_commit_marks_a_modified_tree_dirty_except_under_ignored_paths(tmp_path):
    import subprocess

    from crlrepro.runtime.artifacts import git_commit

    def git(*args):
        subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "code.py").write_text("1\n")
    (tmp_path / "docs" / "results" / "summary.csv").write_text("a\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "init")
    head = git_commit(tmp_path)
    assert head and not head.endswith("-dirty")
    (tmp_path / "docs" / "results" / "summary.csv").write_text("b\n")  # a publication in progress
    assert git_commit(tmp_path / "src", ignore=()) == head + "-dirty"
    assert git_commit(tmp_path / "src") == head  # published results are outputs, not code (artifacts.NOT_CODE)
    (tmp_path / "src" / "code.py").write_text("2\n")  # the code itself changed
    assert git_commit(tmp_path / "src", ignore=("docs/results",)) == head + "-dirty"
