import pytest
import torch
from threadpoolctl import threadpool_info

from crlrepro.device import configure_threads, select_device


def test_select_device():
    assert select_device("cpu") == "cpu"
    assert select_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device must be one of"):
        select_device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match="no CUDA device"):
        select_device("cuda")


def test_configure_threads_limits_torch_and_blas():
    before = torch.get_num_threads()
    limiter = None
    try:
        limiter = configure_threads(1)
        assert torch.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    finally:
        torch.set_num_threads(before)
        if limiter is not None:
            limiter.restore_original_limits()
