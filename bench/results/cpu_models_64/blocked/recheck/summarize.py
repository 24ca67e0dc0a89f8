# sitting.sh's rounds: per build and thread count, glimpse's and ONNX Runtime's medians per
# process, glimpse / ORT per process, and after / before pair by pair (the same round).
#   python3 summarize.py DIR [DIR ...]   (each a directory of r18_{before,after}_rN.json)
import glob, json, os, re, statistics as st, sys

rounds = {}  # (dir, n) -> {build: report}
for d in sys.argv[1:]:
    for path in glob.glob(os.path.join(d, 'r18_*_r*.json')):
        build, n = re.match(r'r18_(\w+?)_r(\d+)\.json', os.path.basename(path)).groups()
        rounds.setdefault((d, int(n)), {})[build] = json.load(open(path))
pairs = [rounds[k] for k in sorted(rounds) if len(rounds[k]) == 2]
for threads in (2, 1):
    print(f'## {threads} thread(s), {len(pairs)} rounds')
    ms = {'before': [], 'after': []}
    for build in ('before', 'after'):
        g, o = [], []
        for p in pairs:
            run = next(r for r in p[build]['runs'] if r['threads'] == threads)
            g.append(run['glimpse']['median_s'] * 1e3)
            o.append(run['onnxruntime']['median_s'] * 1e3)
        ms[build] = g
        ratio = [a / b for a, b in zip(g, o)]
        print(f'{build}: glimpse ms', ' '.join('%.2f' % x for x in g),
              '| median %.2f min %.2f' % (st.median(g), min(g)))
        print(f'{build}: ORT ms    ', ' '.join('%.2f' % x for x in o),
              '| median %.2f min %.2f' % (st.median(o), min(o)))
        print(f'{build}: glimpse/ORT', ' '.join('%.2f' % x for x in ratio),
              '| median %.2f' % st.median(ratio))
    pair = [a / b for a, b in zip(ms['after'], ms['before'])]
    print('after/before per round', ' '.join('%.2f' % x for x in pair),
          '| median %.2f' % st.median(pair))
