# Per-process medians of alternate.sh's runs, and blocked / NCHW pair by pair.
import json, statistics as st, sys
pre, n = sys.argv[1], int(sys.argv[2])
meds = {}
for l in ['nchw', 'blocked']:
    meds[l] = [st.median(json.load(open(f'alt_{pre}/{l}_{i}.json'))['samples_s']) * 1e3 for i in range(1, n + 1)]
    print(l, ' '.join('%.2f' % m for m in meds[l]), 'min %.2f median %.2f' % (min(meds[l]), st.median(meds[l])))
ratios = [b / a for a, b in zip(meds['nchw'], meds['blocked'])]
print('blocked/nchw per pair', ' '.join('%.2f' % r for r in ratios), 'median %.2f' % st.median(ratios))
