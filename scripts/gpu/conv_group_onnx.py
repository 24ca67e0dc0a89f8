#!/usr/bin/env python3
"""Writes a three-layer ONNX model of one group of a ResNet basic block's 3×3 convolutions, so
that a GPU session can tune that group alone (bench/results/gpu_h200.md, seventh session):

    conv (no ReLU) → conv + ReLU → conv + residual add + ReLU

the three fused tasks ResNet-18 has at each resolution. The weights are zeros: the timing does
not depend on them, and the gzip'd file is a few KB for the device tool to carry (glimpse reads
the plain file: gunzip it there).

    python3 scripts/gpu/conv_group_onnx.py --channels 256 --size 14 --out build/gpu-mini/group14.onnx.gz

Needs the PyPI package onnx (scripts/python-env.sh installs it).
"""
import argparse
import gzip

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--channels", type=int, required=True, help="input and output channels")
    p.add_argument("--size", type=int, required=True, help="height and width of the image")
    p.add_argument("--out", required=True, help="the model, gzip'd when the name ends in .gz")
    args = p.parse_args()
    c, n = args.channels, args.size

    def conv(x, y, name):
        return helper.make_node("Conv", [x, name + ".w", name + ".b"], [y], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1])

    weights = []
    for name in ("c1", "c2", "c3"):
        weights.append(numpy_helper.from_array(np.zeros((c, c, 3, 3), np.float32), name + ".w"))
        weights.append(numpy_helper.from_array(np.zeros(c, np.float32), name + ".b"))
    nodes = [conv("x", "a", "c1"),
             conv("a", "b0", "c2"), helper.make_node("Relu", ["b0"], ["b"]),
             conv("b", "c0", "c3"), helper.make_node("Add", ["c0", "a"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"])]
    shape = [1, c, n, n]
    graph = helper.make_graph(nodes, f"conv_group_{c}x{n}x{n}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
                              weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # what Debian's libonnx 1.12 reads
    data = model.SerializeToString()
    if args.out.endswith(".gz"):
        with gzip.open(args.out, "wb", compresslevel=9) as f:
            f.write(data)
    else:
        with open(args.out, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
