import json

import pandas as pd
import pytest

from crlrepro import artifacts


def test_atomic_write_leaves_nothing_when_interrupted(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("old complete content\n")
    with pytest.raises(RuntimeError):
        with artifacts.atomic_path(target) as tmp:
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

    from crlrepro.artifacts import save_torch

    payload = {"weights": torch.arange(6.0).reshape(2, 3), "note": "x"}
    save_torch(payload, tmp_path / "a.pt")
    save_torch(payload, tmp_path / "sub" / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "sub" / "b.pt").read_bytes()
    assert torch.equal(torch.load(tmp_path / "a.pt")["weights"], payload["weights"])
    assert not list(tmp_path.glob(".*.tmp"))

