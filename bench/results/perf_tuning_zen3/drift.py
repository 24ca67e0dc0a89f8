#!/usr/bin/env python3
"""How the machine drifted during the study (perf_tuning_zen3.md): configurations that several runs
measured, each measurement's time over the median of that configuration's measurements, binned by
the quarter hour it started in. A bin whose median ratio is above 1 measured the same kernels
slower than the study as a whole.

  bench/results/perf_tuning_zen3/drift.py build/study-zen3 [GLIMPSE]
"""
import collections
import datetime
import glob
import json
import statistics
import subprocess
import sys

study, glimpse = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "build/ci/glimpse")
measured = collections.defaultdict(list)  # (workload, config hash) → [(started_at, time_s)]
for db in sorted(glob.glob(f"{study}/*.db")):
    out = subprocess.run([glimpse, "db", "export", "--db", db], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        record = json.loads(line)
        if record["type"] == "record" and record["status"] == "ok":
            key = (record["workload_key"], record["config_hash"])
            measured[key].append((record["started_at"], record["time_s"]))
ratios = collections.defaultdict(list)  # "HH:MM" quarter → [time / the configuration's median]
for series in measured.values():
    if len(series) < 3:
        continue
    median = statistics.median(time for _, time in series)
    for started, time in series:
        when = datetime.datetime.fromtimestamp(started, datetime.timezone.utc)
        ratios[f"{when.hour:02d}:{when.minute // 15 * 15:02d}"].append(time / median)
for quarter in sorted(ratios):
    values = sorted(ratios[quarter])
    print(f"{quarter} {len(values)} median ratio {statistics.median(values):.3f}  "
          f"p10 {values[len(values) // 10]:.3f}  p90 {values[9 * len(values) // 10]:.3f}")
