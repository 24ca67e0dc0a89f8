#!/usr/bin/env python3
"""Coverage of glimpse's GPU table: its size, and how many of the device names in CLBlast's tuning
database (../shared/datasets/clblast_best/clblast_best_fp32.json.gz) the built glimpse resolves.

Each name is asked of `glimpse hw show NAME --json`, so what is measured is the lookup users get.

  python3 scripts/hardware/coverage.py [--glimpse build/ci/glimpse] [--clblast FILE]
"""

import argparse
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CLBLAST = os.path.join(os.path.dirname(REPO), "shared", "datasets", "clblast_best",
                               "clblast_best_fp32.json.gz")


def resolve(glimpse, name):
    run = subprocess.run([glimpse, "hw", "show", name, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        return None
    try:
        return json.loads(run.stdout).get("name")
    except ValueError:
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--glimpse", default=os.path.join(REPO, "build", "ci", "glimpse"))
    parser.add_argument("--clblast", default=DEFAULT_CLBLAST)
    parser.add_argument("--table", default=os.path.join(REPO, "data", "hardware", "gpus.json"))
    args = parser.parse_args(argv)

    with open(args.table, encoding="utf-8") as f:
        gpus = json.load(f)["gpus"]
    by_vendor = {}
    for gpu in gpus:
        by_vendor[gpu["vendor"]] = by_vendor.get(gpu["vendor"], 0) + 1
    print(f"table: {len(gpus)} GPUs ("
          + ", ".join(f"{n} {v}" for v, n in sorted(by_vendor.items())) + ")")

    with gzip.open(args.clblast, "rt", encoding="utf-8") as f:
        records = json.load(f)["records"]
    devices = {}
    for r in records:
        devices.setdefault(r["device"], (r["device_type"], r["vendor"]))
    resolved, missing = {}, []
    for name in sorted(devices):
        found = resolve(args.glimpse, name)
        if found:
            resolved[name] = found
        else:
            missing.append(name)

    def fraction(names):
        hit = sum(1 for n in names if n in resolved)
        return f"{hit}/{len(names)} ({100.0 * hit / max(1, len(names)):.1f}%)"

    in_scope = [n for n, (kind, vendor) in devices.items()
                if kind == "GPU" and vendor in ("NVIDIA", "AMD")]
    print(f"clblast_best device names resolved: {fraction(list(devices))} of all; "
          f"{fraction(in_scope)} of NVIDIA and AMD GPUs")
    for name in sorted(resolved):
        if name != resolved[name]:
            print(f"  {name!r} -> {resolved[name]!r}")
    print("not resolved:")
    for name in missing:
        kind, vendor = devices[name]
        print(f"  {name!r} ({vendor} {kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
