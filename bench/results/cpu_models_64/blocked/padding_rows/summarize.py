#!/usr/bin/env python3
"""run.sh's per-model JSONs (bench/cpu_alternate_vs_onednn.py, builds `old` and `new`) as one table.

For each layer: whether the pick's generated code changed — it skips padding rows under the rule
of src/cpu/template_conv2d.cc (NCHWc: padding, no dilation, r the outermost reduction loop of more
than one iteration with one inside it) — the new build's time over the old one's (fastest rounds),
and both against oneDNN. The unchanged layers measure the same code twice: their spread is the
noise of the sitting.

  summarize.py OUT/vgg16.json OUT/resnet18.json > summary.md
"""
import json
import math
import re
import sys


def skips_rows(op, config):
    f = dict(kv.split("=") for kv in op.partition(":")[2].split(","))
    if (config.get("layout") != "NCHWc" or int(f.get("pad", 0)) == 0
            or int(f.get("dilation", 1)) != 1):
        return False
    extents = {0: config["tile_c"][0], 1: config["tile_c"][1], 2: int(f["R"]), 3: int(f["S"])}
    outside = inside = past = False
    for position in config["order"]:
        if position == 4:
            continue
        if position == 2:
            past = True
        elif extents[position] > 1 and past:
            inside = True
        elif extents[position] > 1:
            outside = True
    return not outside and inside


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    for path in sys.argv[1:]:
        data = json.load(open(path))
        name = re.sub(r"\.json$", "", path.rsplit("/", 1)[-1])
        print(f"### {name} ({data['rounds']} rounds from {data['started_utc']})\n")
        print("| operator | skips rows | new / old time | old / oneDNN | new / oneDNN |")
        print("|---|---|---:|---:|---:|")
        changed, same, old_ratio, new_ratio = [], [], [], []
        for entry in data["operators"]:
            if not entry["kind"]:
                continue
            old, new = entry["glimpse_s"]["after@old"], entry["glimpse_s"]["after@new"]
            pick = entry["configs"]["after"]
            skip = skips_rows(pick["operator"], pick["config"])
            change = min(new) / min(old)
            (changed if skip else same).append(change)
            old_ratio.append(entry["ratio_fastest"]["after@old"])
            new_ratio.append(entry["ratio_fastest"]["after@new"])
            print(f"| `{entry['op']}` | {'yes' if skip else 'no'} | {change:.3f} | "
                  f"{old_ratio[-1]:.2f}× | {new_ratio[-1]:.2f}× |")
        print()
        print(f"- new / old, geo-mean: {geomean(changed):.3f} over the {len(changed)} layers whose "
              f"code changed, {geomean(same):.3f} over the {len(same)} whose code did not "
              f"(range {min(same, default=float('nan')):.3f}–{max(same, default=float('nan')):.3f})")
        print(f"- / oneDNN blocked, geo-mean over {len(old_ratio)} convolutions: old "
              f"{geomean(old_ratio):.2f}× (lowest {min(old_ratio):.2f}×), new "
              f"{geomean(new_ratio):.2f}× (lowest {min(new_ratio):.2f}×)\n")


if __name__ == "__main__":
    main()
