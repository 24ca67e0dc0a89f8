"""Shared fixtures of the Python package's tests (python/tests, run by scripts/test.sh)."""

import gzip
import os
import shutil

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def repo_path(*parts):
    return os.path.join(REPO, *parts)


@pytest.fixture
def pnpoly_cache(tmp_path):
    """The recorded pnpoly space (RTX 3090, Kernel Tuner cache) as a plain .json file, which
    Kernel Tuner's simulation mode needs."""
    path = tmp_path / "pnpoly_RTX_3090.json"
    with gzip.open(repo_path("data", "recorded", "pnpoly", "RTX_3090.json.gz"), "rb") as src, \
            open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return str(path)
