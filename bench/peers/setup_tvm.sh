#!/usr/bin/env bash
# Creates the MetaSchedule peer's virtual environment (build/tvm-venv) with the pinned versions of
# bench/peers/requirements-tvm.txt: apache-tvm 0.27.0.post1 and what MetaSchedule needs beside it
# (xgboost for its default cost model, psutil and cloudpickle for its builder and runner
# processes). Run from anywhere; needs python3 with venv and access to PyPI. Re-running it brings
# an existing environment to the pinned versions. TVM_VENV overrides the location.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${TVM_VENV:-$repo/build/tvm-venv}"

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$repo/bench/peers/requirements-tvm.txt"

# apache-tvm-ffi 0.1.15.post2 crashes apache-tvm 0.27.0.post1 (a segfault in ToJSONGraph) when a
# PrimFunc made from TE is serialised, which MetaSchedule's JSON database does for every workload.
# The pin avoids it; checked here so that a drifted environment fails now, not in a tuning run.
check='
import tvm
from tvm import te

a = te.placeholder((4,), name="a")
b = te.compute((4,), lambda i: a[i] + 1.0, name="b")
tvm.ir.save_json(te.create_prim_func([a, b]))
'
if ! "$venv/bin/python" -c "$check"; then
  echo "error: $venv: TVM cannot serialise a PrimFunc; is apache-tvm-ffi at the pinned version?" >&2
  exit 1
fi
"$venv/bin/python" -c '
import sys, tvm, tvm_ffi, xgboost
from tvm.s_tir import meta_schedule
print(f"tvm {tvm.__version__}, tvm-ffi {tvm_ffi.__version__}, xgboost {xgboost.__version__} in "
      + sys.argv[1])' "$venv"
