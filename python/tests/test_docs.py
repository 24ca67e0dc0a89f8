"""The examples of docs/python.md run, in order, in one namespace, from the repository root."""

import os
import re

import pytest

from conftest import REPO

pytest.importorskip("kernel_tuner")
pytest.importorskip("optuna")
pytest.importorskip("ray")


def test_the_examples_in_docs_python_md_run(monkeypatch, capsys):
    text = open(os.path.join(REPO, "docs", "python.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    monkeypatch.chdir(REPO)
    namespace = {}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/python.md example {number}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "best" in out and "valid of 32" in out
