#!/usr/bin/env python3
"""Per task of a tuning database: the best time, the best template seed's time and whether a seed
was the run's best. Usage: seed_share.py RUN.db > seed_share.txt"""
import sqlite3, sys
c=sqlite3.connect(f"file:{sys.argv[1]}?mode=ro",uri=True)
rows=c.execute("select w.name, r.strategy, r.status, r.time_s from records r join workloads w on r.workload_key=w.key order by r.id").fetchall()
by={}
for n,s,st,t in rows: by.setdefault(n,[]).append((s,st,t))
won=0; tot=0
for n,rs in by.items():
    ok=[r for r in rs if r[1]=='ok']
    best=min(r[2] for r in ok)
    seeds=[r[2] for r in rs if r[0]=='seed' and r[1]=='ok']
    sb=min(seeds) if seeds else None
    tot+=1; won+= sb is not None and sb<=best
    print(f"{n.split(':')[0][:9]:9s} {n.split(':')[1][:44]:44s} best {best*1e6:7.0f} seedbest {'-' if sb is None else round(sb*1e6):>7} nseed {len(seeds)} {'SEED' if sb is not None and sb<=best else ''}")
print("best is a seed on", won, "of", tot)
