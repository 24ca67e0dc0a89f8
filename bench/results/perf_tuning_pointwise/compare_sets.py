#!/usr/bin/env python3
"""From probe_columns.py's probe.json: per layer, the best of the template seeds as they were
against the best of the seeds with the rule of template_seeds.cc (a block of one vector or
less, 16 lanes, 32 registers, takes at most 15 columns — the largest divisor of OW up to half the
registers — so its half-columns twin replaces it where it had more; the two-vector blocks keep
theirs). Only layers where the seed sets differ.

  compare_sets.py columns/probe.json > compare.md
"""
import json
import math
import sys

from probe_columns import largest_divisor_at_most

LANES = 16


def narrow(config):
    return json.loads(config)["tile_k"][2] <= LANES


def twin_of(config, twins):
    c = json.loads(config)
    for t in twins:
        d = json.loads(t)
        if {k: v for k, v in c.items() if k != "tile_ow"} == \
                {k: v for k, v in d.items() if k != "tile_ow"}:
            return t
    return None


def label(config):
    c = json.loads(config)
    return f"{c['tile_k'][2]} ch × {c['tile_ow'][2]}"


rows = json.load(open(sys.argv[1]))
print("| layer | seeds as they were: best (tile) | with the rule: best (tile) | old ÷ new |")
print("|---|---:|---:|---:|")
ratios = []
for r in rows:
    old = {c: t for c, t in r["seeds"].items() if t}
    new = {}
    for c, t in old.items():
        if narrow(c):
            tw = twin_of(c, r["twins"])
            out_w = json.loads(c)["tile_ow"][1] * json.loads(c)["tile_ow"][2]
            rule_columns = largest_divisor_at_most(out_w, 15)  # (32 − 1) / 2 = 15
            if json.loads(c)["tile_ow"][2] == rule_columns:
                new[c] = t  # the rule leaves it (14- and 7-wide layers)
                continue
            assert tw is not None and json.loads(tw)["tile_ow"][2] == rule_columns, r["op"]
            new[tw] = r["twins"][tw]
        else:
            new[c] = t
    if set(new) == set(old):
        continue
    bo = min(old, key=old.get)
    bn = min(new, key=new.get)
    ratios.append(old[bo] / new[bn])
    op = r["op"].split(":")[1]
    print(f"| `{op}` | {old[bo] * 1e6:.1f} µs ({label(bo)}) | {new[bn] * 1e6:.1f} µs ({label(bn)}) "
          f"| {ratios[-1]:.3f} |")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"\n{len(ratios)} layers where the seeds differ; the new set's best faster on "
      f"{sum(x > 1 for x in ratios)}, slower on {sum(x < 1 for x in ratios)}; geometric mean of "
      f"old ÷ new {geo:.3f}")
