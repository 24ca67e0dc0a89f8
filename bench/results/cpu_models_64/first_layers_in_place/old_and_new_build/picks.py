import gzip, json, sys
# best ok record per workload of a tuning export: "op<TAB>config-json" lines
keys={}; best={}
for line in gzip.open(sys.argv[1],'rt'):
    r=json.loads(line)
    if r.get('type')=='workload': keys[r['key']]=r['name']; continue
    k=r.get('workload_key')
    if r.get('status')!='ok' or k not in keys: continue
    if k not in best or r['time_s']<best[k][0]: best[k]=(r['time_s'],r['config'])
for k,(t,c) in best.items(): print(keys[k]+'\t'+json.dumps(c,separators=(',',':')))
