# ResNet-50's 28x28 stride-2 3x3 layer: its @1000 pick (s2_recheck.json) measured 3 times in each of
# 12 bench_cpu_templates processes at 2 threads; counts the measurements over 1.2 ms (the slow mode).
#   cd bench && python3 ../bench/results/cpu_models_64/blocked/resnet50_1000/s2_28x28_modes.py BENCH
import json
import os
import sys

sys.path.insert(0, '.')
from cpu_remeasure_runs import measure  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
bench = sys.argv[1] if len(sys.argv) > 1 else '../build/ci/bench/bench_cpu_templates'
d = json.load(open(os.path.join(here, 's2_recheck.json')))
o = [x for x in d['operators'] if 'H=28' in x['op']][0]
c = o['configs']['at1000']
pick = (c['operator'], json.dumps(c['config']))
slow = 0
for i in range(12):
    t = measure(bench, [pick, pick, pick], 2)
    slow += sum(x > 1.2e-3 for x in t)
    print(i, [round(x * 1e3, 3) for x in t], flush=True)
print('slow', slow, 'of 36')
