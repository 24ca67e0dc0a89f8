import pytest

import glimpse


def space():
    return glimpse.Space({"x": [1, 2, 3, 4, 5, 6], "y": [1, 2, 4, 8]}, ["x * y <= 16"])


def cost(config):
    # A bowl with its minimum at x=4, y=2 (valid: 8 <= 16).
    return 1e-3 * (1 + (config["x"] - 4) ** 2 + (config["y"] - 2) ** 2)


@pytest.mark.parametrize("name", glimpse.known_tuners())
def test_every_strategy_proposes_new_valid_configurations(name):
    s = space()
    tuner = glimpse.Tuner(name, s, seed=1)
    seen = set()
    for _ in range(3):
        batch = tuner.propose(4)
        assert 0 < len(batch) <= 4
        for config in batch:
            assert s.is_valid(config), (name, config)
            key = (config["x"], config["y"])
            assert key not in seen, (name, config)
            seen.add(key)
        tuner.observe(batch, [cost(c) for c in batch])


def test_grid_proposes_the_whole_valid_space_then_nothing():
    s = space()
    tuner = glimpse.Tuner("grid", s)
    configs = []
    while True:
        batch = tuner.propose(5)
        if not batch:
            break
        tuner.observe(batch, [cost(c) for c in batch])
        configs += batch
    assert len(configs) == s.count_valid()


def test_failures_are_observed_with_their_status():
    s = space()
    tuner = glimpse.Tuner("xgb", s, seed=2)
    batch = tuner.propose(4)
    tuner.observe(batch, [None, cost(batch[1]), None, cost(batch[3])],
                  ["compile-device", "ok", "unknown", "ok"])
    with pytest.raises(glimpse.Error, match="status 'ok' needs a finite time"):
        tuner.observe(batch[:1], [None], ["ok"])
    with pytest.raises(glimpse.Error, match="unknown measurement status .crashed.; known: ok"):
        tuner.observe(batch[:1], [None], ["crashed"])


def test_unknown_strategies_and_options_are_refused_with_what_is_accepted():
    with pytest.raises(glimpse.Error, match="unknown tuner 'xgbb'; known: .*random"):
        glimpse.Tuner("xgbb", space())
    with pytest.raises(glimpse.Error, match="unknown option 'popsize'"):
        glimpse.Tuner("ga", space(), {"popsize": 10})


def test_the_hardware_aware_tuner_reads_the_device():
    info = glimpse.gpu("RTX_3090")
    assert info["name"] == "NVIDIA GeForce RTX 3090"
    tuner = glimpse.Tuner("glimpse", space(), {"quiet": True}, seed=0,
                          device="NVIDIA GeForce RTX 3090")
    assert len(tuner.propose(4)) == 4
    with pytest.raises(glimpse.Error, match="closest"):
        glimpse.gpu("RTX 9999 Ultra")
