#!/bin/bash
# median and min per name of a time.sh log
awk '{print $2, $4}' "$1" | python3 -c '
import sys,statistics as s,collections
d=collections.defaultdict(list)
for l in sys.stdin:
  n,t=l.split(); d[n].append(float(t))
for n,v in d.items(): print(f"{n:20s} median {s.median(v)*1000:7.1f} us  min {min(v)*1000:7.1f}  n={len(v)}")'
