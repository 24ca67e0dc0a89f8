"""Measurements spread over a local Ray cluster (this machine, loopback only): two worker actors,
one lost mid-batch, a database that ends complete."""

import pytest

ray = pytest.importorskip("ray")

import glimpse  # noqa: E402
import glimpse.ray  # noqa: E402
from conftest import repo_path  # noqa: E402

PNPOLY = repo_path("data", "recorded", "pnpoly", "RTX_3090.json.gz")


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1", configure_logging=False)
    yield
    ray.shutdown()


def distinct_configs(records):
    return {tuple(sorted(r["config"].items())) for r in records}


def test_two_workers_measure_a_replayed_space_into_the_database(tmp_path):
    db_path = str(tmp_path / "ray.db")
    summary = glimpse.ray.tune(target="replay", recorded=PNPOLY, tuner="random", budget=24,
                               seed=3, database=db_path, batch_size=8, workers=2)
    assert summary["measurements"] == 24 and summary["workers_lost"] == 0
    recorded = glimpse.load_recorded(PNPOLY)
    assert recorded.lookup(summary["best_config"])["time_s"] == summary["best_time_s"]
    records = glimpse.Database(db_path, read_only=True).records(summary["workload_key"])
    assert len(records) == 24 and len(distinct_configs(records)) == 24
    for r in records:  # what each worker measured is what the recording says
        assert r["time_s"] == recorded.lookup(r["config"])["time_s"]

    again = glimpse.ray.tune(target="replay", recorded=PNPOLY, tuner="random", budget=30, seed=3,
                             database=db_path, batch_size=8, workers=2)
    assert again["resumed"] == 24 and again["measurements"] == 30
    records = glimpse.Database(db_path, read_only=True).records(summary["workload_key"])
    assert len(records) == 30 and len(distinct_configs(records)) == 30


def test_a_worker_lost_mid_batch_costs_no_measurement(tmp_path):
    db_path = str(tmp_path / "lost.db")
    summary = glimpse.ray.tune(target="replay", recorded=PNPOLY, tuner="random", budget=24,
                               seed=5, database=db_path, batch_size=8, workers=2,
                               _fail_after=[2])  # worker 0 dies on its second batch
    assert summary["workers_lost"] == 1
    records = glimpse.Database(db_path, read_only=True).records(summary["workload_key"])
    assert len(records) == 24 and len(distinct_configs(records)) == 24
    # Its part of the batch was measured again by the other worker: nothing is a failure.
    assert all(r["status"] != "unknown" for r in records), [r["error"] for r in records]


def test_with_every_worker_lost_the_batch_is_recorded_as_failed():
    summary = glimpse.ray.tune(target="replay", recorded=PNPOLY, tuner="random", budget=8,
                               seed=5, batch_size=8, workers=1, _fail_after=[1])
    assert summary["measurements"] == 8 and summary["failed"] == 8
    assert summary["by_status"] == {"unknown": 8} and summary["workers_lost"] == 1


def test_workers_tune_an_operator_on_this_cpu():
    summary = glimpse.ray.tune("dense:M=16,N=16,K=32", target="cpu", tuner="random", budget=4,
                               batch_size=4, workers=2, measurer_options={"threads": 1})
    assert summary["measurements"] == 4 and summary["by_status"].get("ok", 0) >= 1
