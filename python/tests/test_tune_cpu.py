import pytest

import glimpse


def test_an_operator_is_tuned_on_this_cpu_into_a_database(tmp_path):
    db = str(tmp_path / "cpu.db")
    summary = glimpse.tune("dense:M=16,N=16,K=32", target="cpu", tuner="random", budget=4,
                           seed=1, database=db, batch_size=2, threads=1)
    assert summary["measurements"] == 4
    assert summary["by_status"].get("ok", 0) >= 1
    assert summary["best_time_s"] is not None and summary["best_time_s"] > 0
    [row] = glimpse.Database(db, read_only=True).summaries()
    assert row["records"] == 4 and row["best_time_s"] == summary["best_time_s"]


def test_a_bad_operator_or_target_is_a_clear_error():
    with pytest.raises(glimpse.Error, match="conv9d"):
        glimpse.tune("conv9d:N=1", budget=2)
    with pytest.raises(glimpse.Error, match="target 'tpu' is not known; accepted: cpu, cuda"):
        glimpse.tune("dense:M=16,N=16,K=16", target="tpu", budget=2)


def test_cuda_kernels_are_compiled_and_checked_without_a_gpu():
    try:
        summary = glimpse.tune("dense:M=64,N=64,K=64", target="cuda", tuner="random", budget=3,
                               build_only=True, arch="sm_90")
    except glimpse.Error as error:
        if "NVRTC not available" in str(error):
            pytest.skip("this build has no NVRTC")
        raise
    assert summary["measurements"] == 3
    assert set(summary["by_status"]) <= {"ok", "instantiation", "compile-device"}
    assert summary["device"].startswith("build-only")
