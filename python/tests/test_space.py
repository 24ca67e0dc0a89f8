import numpy as np
import pytest

import glimpse


def small_space():
    return glimpse.Space({"block_x": [16, 32, 64], "tile": [1, 2, 4], "layout": ["row", "col"]},
                         ["block_x * tile <= 64"])


def test_a_space_counts_its_valid_configurations():
    space = small_space()
    assert space.knob_names == ["block_x", "tile", "layout"]
    assert space.raw_size == 18
    # block_x * tile <= 64: 16×{1,2,4}, 32×{1,2}, 64×{1} = 6, times two layouts
    assert space.count_valid() == 12
    assert space.is_valid({"block_x": 32, "tile": 2, "layout": "col"})
    assert not space.is_valid({"block_x": 64, "tile": 2, "layout": "col"})


def test_samples_are_valid_and_reproducible():
    space = small_space()
    first = space.sample(50, seed=3)
    assert all(space.is_valid(c) for c in first)
    assert first == space.sample(50, seed=3)
    assert len({tuple(sorted(c.items())) for c in first}) > 1


def test_features_are_a_numpy_matrix():
    space = small_space()
    configs = [{"block_x": 16, "tile": 4, "layout": "row"}, {"block_x": 64, "tile": 1, "layout": "col"}]
    features = space.features(configs)
    assert isinstance(features, np.ndarray)
    assert features.shape == (2, len(space.feature_names()))
    assert features[0, 0] == 16 and features[1, 0] == 64


def test_the_json_form_reads_back():
    space = small_space()
    again = glimpse.Space.from_json(space.to_json())
    assert again.count_valid() == 12
    assert again.tune_params == space.tune_params


def test_bad_input_is_a_glimpse_error_naming_what_is_wrong():
    with pytest.raises(glimpse.Error, match="restriction 'tiles > 1': unknown name 'tiles'; known: tile"):
        glimpse.Space({"tile": [1, 2]}, ["tiles > 1"])
    with pytest.raises(glimpse.Error, match=r"tune_params\['a'\]"):
        glimpse.Space({"a": []})
    with pytest.raises(glimpse.Error, match="has no value|not a value|values"):
        small_space().is_valid({"block_x": 17, "tile": 1, "layout": "row"})
    assert issubclass(glimpse.Error, ValueError)
