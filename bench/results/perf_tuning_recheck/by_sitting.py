#!/usr/bin/env python3
"""The seventh study's quality after 16 by re-timing sitting and seed set (perf_tuning.md, "Three
more seeds, and a second re-timing"): the first sitting's re-timing of seeds 1-3, the second's
of seeds 1-3 and of seeds 4-6. Needs the local study folders build/study/recheck and
build/study/recheck_more (run.sh, more_seeds.sh). Run from the repository root."""
import sys, gzip, json, statistics, types
sys.path.insert(0,'bench/perf_tuning'); import study as S
def load(out, rj):
    d=json.load(gzip.open(rj)); st, items = S.study_runs(types.SimpleNamespace(out=out, glimpse=None)); return d, st, items
def q16(d, st, items, name, seeds):
    per=[]
    for op in st['ops']:
        key=st['canonical'].get(op,op); t=d['retimed'][key]; best=min(t.values()); vals=[]
        for s in seeds:
            it=items.get((name,s))
            if it is None: continue
            ch=[c for n,c in S.incumbents(it).get(key,[]) if n<=16]
            vals.append(best/t[ch[-1]] if ch and t.get(ch[-1]) else 0)
        if vals: per.append(statistics.median(vals))
    return per, (statistics.median(per) if per else float('nan'))
d2,st2,it2=load('build/study/recheck_more','bench/results/perf_tuning_recheck/more_seeds/recheck.json.gz')
d1,st1,it1=load('build/study/recheck','bench/results/perf_tuning_recheck/recheck.json.gz')
for name in ['learned','learned16-recheck','hardware16','hardware16-recheck','xgb']:
    a=q16(d1,st1,it1,name,[1,2,3]); b=q16(d2,st2,it2,name,[1,2,3]); c=q16(d2,st2,it2,name,[4,5,6])
    print(f"{name:20s} sit1 s1-3 {a[1]:.3f}  sit2 s1-3 {b[1]:.3f} {['%.3f'%x for x in b[0]]}  sit2 s4-6 {c[1]:.3f}")
