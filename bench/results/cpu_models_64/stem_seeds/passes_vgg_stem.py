#!/usr/bin/env python3
"""Interleaved passes over candidate plain-layout seeds for VGG-16's first layer, and the
12-03 run's best (old_best), one bench_cpu_templates call each: prints one JSON line of times
(ms) per pass. Usage: BENCH=path python3 passes_vgg_stem.py PASSES >> pass_stem.jsonl.
Names: k<k2>w<ow2><parallel>; _ow1x2 two vectors as two tile steps; _sfirst taps before c."""
import json, os, re, subprocess, sys
B = os.environ.get('BENCH', 'build/ci/bench/bench_cpu_templates')
OP = 'conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1'
def run(cfg):
    out = subprocess.run([B, '--op', OP, '--config', json.dumps(cfg)], capture_output=True, text=True).stdout
    m = re.search(r'\| ([0-9.]+) \| [0-9]+ % \| [0-9.]+ \| ([0-9.]+) ms', out)
    return float(m.group(2)) if m else None
def nchw(k2, ow1, ow2, par, oh1=1, order=(0, 1, 2, 3, 4)):
    return {"layout": "NCHW", "tile_k": [64 // k2, 1, k2], "tile_oh": [224 // oh1, oh1], "tile_ow": [224 // (ow1 * ow2), ow1, ow2],
            "tile_c": [1, 3], "order": list(order), "parallel": par, "vectorize": 1, "unroll": 1, "padding": "copy"}
V = {'k4w16k': nchw(4, 1, 16, 'k'), 'k4w16oh': nchw(4, 1, 16, 'oh'), 'k8w16k': nchw(8, 1, 16, 'k'),
     'k8w16oh': nchw(8, 1, 16, 'oh'), 'k8w32oh': nchw(8, 1, 32, 'oh'), 'k4w32oh': nchw(4, 1, 32, 'oh'),
     'k4w16koh': nchw(4, 1, 16, 'k_oh'), 'k2w16k': nchw(2, 1, 16, 'k'), 'k4w16k_ow1x2': nchw(4, 2, 16, 'k'),
     'k4w16k_sfirst': nchw(4, 1, 16, 'k', order=(2, 3, 0, 1, 4)),
     'old_best': {"layout": "NCHW", "order": [0, 2, 4, 3, 1], "padding": "copy", "parallel": "k", "tile_c": [3, 1], "tile_k": [2, 32, 1], "tile_oh": [224, 1], "tile_ow": [8, 1, 28], "unroll": 1, "vectorize": 1}}
for p in range(int(sys.argv[1])):
    print(json.dumps({name: run(cfg) for name, cfg in V.items()}), flush=True)
