#!/usr/bin/env python3
"""Writes a model's task list (bench/configs/*_cpu_tasks.txt) with its convolutions' activations
channel-blocked (in_block / out_block, glimpse/ops.h), as a network that keeps them blocked
between layers would run them: the largest of 16 and 8 that divides the channels, NCHW where
neither does (the 3-channel first layer's input). Dense layers are left out (a 1×1 pooled
activation is the same bytes blocked or not). Comments and weights are kept.

  python3 blocked_tasks.py ../../../configs/vgg16_cpu_tasks.txt > vgg16_blocked_tasks.txt
"""
import re
import sys


def block_of(channels):
    for block in (16, 8):
        if channels % block == 0:
            return block
    return 0


def blocked(line):
    text, _, comment = line.partition("#")
    op = text.strip()
    if not op.startswith(("conv2d:", "depthwise_conv2d:")):
        return None
    fields = dict(item.split("=") for item in op.split(":", 1)[1].split(","))
    in_block = block_of(int(fields["C"]))
    out_block = block_of(int(fields.get("K", fields["C"])))
    if op.startswith("depthwise_conv2d:"):
        in_block = out_block
    extra = "".join(f",{name}={value}" for name, value in
                    (("in_block", in_block), ("out_block", out_block)) if value)
    return f"{op}{extra}" + (f"  # {comment.strip()}" if comment else "")


def main():
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if line.startswith("#") or not line.strip():
            print(line)
            continue
        converted = blocked(line)
        if converted:
            print(converted)


if __name__ == "__main__":
    main()
