import os

import pytest

import glimpse
from conftest import repo_path


def test_a_recorded_space_is_read_and_looked_up():
    recorded = glimpse.load_recorded(repo_path("tests", "data", "pnpoly_small.json"))
    assert recorded.device_name == "NVIDIA GeForce RTX 3090"
    assert len(recorded) == 6
    config, seconds = recorded.best()
    entry = recorded.lookup(config)
    assert entry["status"] == "ok" and entry["time_s"] == seconds
    assert all(seconds <= e["time_s"] for _, e in recorded.entries() if e["time_s"] is not None)


def test_replayed_tuning_finds_the_recorded_best_and_resumes_from_its_database(tmp_path):
    recorded = glimpse.load_recorded(repo_path("data", "recorded", "pnpoly", "RTX_3090.json.gz"))
    db = str(tmp_path / "tune.db")
    summary = glimpse.tune_recorded(recorded, tuner="random", budget=20, seed=4, database=db)
    assert summary["measurements"] == 20 and summary["resumed"] == 0
    assert recorded.lookup(summary["best_config"])["time_s"] == summary["best_time_s"]
    times = [point[2] for point in summary["trajectory"] if point[2] is not None]
    assert times == sorted(times, reverse=True)  # best so far never gets worse

    again = glimpse.tune_recorded(recorded, tuner="random", budget=30, seed=4, database=db)
    assert again["resumed"] == 20 and again["measurements"] == 30
    assert again["best_time_s"] <= summary["best_time_s"]

    database = glimpse.Database(db, read_only=True)
    [workload] = database.workloads()
    records = database.records(workload["key"])
    assert len(records) == 30
    assert len({tuple(sorted(r["config"].items())) for r in records}) == 30
    assert database.best(workload["key"])[0]["time_s"] == again["best_time_s"]


def test_a_missing_file_names_the_path():
    with pytest.raises(glimpse.Error, match="no-such-file.json"):
        glimpse.load_recorded(os.path.join("nowhere", "no-such-file.json"))
