#!/usr/bin/env python3
"""Candidate depthwise seed rules on MobileNet-v2's depthwise layers, one bench_cpu_templates call
per (layer, rule), so each time is measured alone (cold cache, the bench's repeats).

Prints one JSON line per layer: its output size, the band of rows (about 8 KiB of accumulators)
and each rule's best time in µs. Rules (AVX-512: 16 lanes, 32 registers):
  c{16,8}_w{N}     channels as the vector, blocks of 16 or 8 channels, a strip of N columns (the
                   largest divisor of OW ≤ 30, then ≤ 15), padding copied into the packing
  row_out_*        rows as the vector, a band of rows a tile, each tap swept over the band
                   (order r, s, oh1, ow1, c1)
  row_in_*         rows as the vector, one row a tile, the taps innermost (order c1, oh1, ow1, r, s)
  rowband_in_*     the same with a band of rows a tile
  row_in_c2u_*     row_in with two channels interleaved (tile_c [C/2, 1, 2], unrolled)
  *_guard/*_copy   padding by guarded loads or by a copy
Usage: variants.py [path/to/bench_cpu_templates] > variants_passN.jsonl
"""
import json
import re
import subprocess
import sys
from pathlib import Path

LANES, REGISTERS = 16, 32
ROOT = Path(__file__).resolve().parents[4]


def largest_divisor_at_most(n, limit):
    for d in range(min(n, limit), 1, -1):
        if n % d == 0:
            return d
    return 1


def shape_of(op):
    fields = dict(x.split('=') for x in op.split(':')[1].split(','))
    return {k: int(v) for k, v in fields.items()}


def rules(C, OH, OW, band):
    v = {}
    for cb in (16, 8):
        for cols in (largest_divisor_at_most(OW, REGISTERS - 2),
                     largest_divisor_at_most(OW, (REGISTERS - 2) // 2)):
            v[f'c{cb}_w{cols}'] = {"tile_c": [C // cb, 1, cb], "tile_oh": [OH, 1],
                                   "tile_ow": [OW // cols, 1, cols], "order": [0, 1, 2, 3, 4],
                                   "parallel": "c_oh", "vector_axis": "c", "unroll": 1,
                                   "padding": "copy"}
    for pad in ("guard", "copy"):
        row = {"tile_c": [C, 1, 1], "tile_ow": [1, 1, OW], "parallel": "c", "vector_axis": "ow",
               "unroll": 0, "padding": pad}
        v[f'row_out_{pad}'] = dict(row, tile_oh=[OH // band, band], order=[3, 4, 1, 2, 0])
        v[f'row_in_{pad}'] = dict(row, tile_oh=[OH, 1], order=[0, 1, 2, 3, 4])
        v[f'rowband_in_{pad}'] = dict(row, tile_oh=[OH // band, band], order=[0, 1, 2, 3, 4])
        v[f'row_in_c2u_{pad}'] = dict(row, tile_c=[C // 2, 1, 2], tile_oh=[OH, 1],
                                      order=[0, 1, 2, 3, 4], unroll=1)
    return v


def main():
    bench = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / 'build/ci/bench/bench_cpu_templates')
    tasks = ROOT / 'bench/configs/mobilenet_v2_cpu_tasks.txt'
    ops = [l.split('#')[0].strip() for l in open(tasks)]
    for op in [o for o in ops if o.startswith('depthwise')]:
        s = shape_of(op)
        stride, pad = s.get('stride', 1), s.get('pad', 0)
        OH = (s['H'] + 2 * pad - 3) // stride + 1
        OW = (s['W'] + 2 * pad - 3) // stride + 1
        band = largest_divisor_at_most(OH, max(2048 // OW, 1))
        times = {}
        for name, config in rules(s['C'], OH, OW, band).items():
            out = subprocess.run([bench, '--op', op, '--config', json.dumps(config)],
                                 capture_output=True, text=True)
            m = re.search(r'\| ([0-9.]+) ms \|', out.stdout)
            times[name] = float(m.group(1)) * 1000 if m else None
        print(json.dumps({"op": op, "OH": OH, "OW": OW, "band": band, "us": times}), flush=True)


if __name__ == '__main__':
    main()
