"""The type stubs shipped with the package (glimpse/_core.pyi) describe the module as built."""

import os

import pytest

stubgen = pytest.importorskip("nanobind.stubgen")

from conftest import repo_path  # noqa: E402


def test_the_shipped_stubs_match_the_module(tmp_path):
    out = tmp_path / "_core.pyi"
    stubgen.main(["-q", "-m", "glimpse._core", "-o", str(out)])
    shipped = open(repo_path("python", "glimpse", "_core.pyi")).read()
    assert out.read_text() == shipped, (
        "python/glimpse/_core.pyi is out of date: regenerate it with "
        "PYTHONPATH=build/ci/python .venv/bin/python -m nanobind.stubgen -m glimpse._core "
        "-o python/glimpse/_core.pyi")
    assert os.path.exists(repo_path("python", "glimpse", "py.typed"))
