#!/usr/bin/env python3
"""Writes the small ONNX models the import tests read (tests/data/onnx/), with ONNX Runtime's
output for a fixed input beside each one that runs (<name>.expected.json: input, output, shapes).

Every model is built node by node with onnx.helper, opset 13 unless a test needs another, IR
version 8 (what Debian's libonnx 1.12 reads). Weights come from a seeded generator, so a rerun
writes the same files.

    python3 scripts/onnx/make_test_models.py [--out tests/data/onnx]

Needs the PyPI packages onnx, onnxruntime and numpy (scripts/python-env.sh installs them).
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
rng = np.random.default_rng(17)


def weight(name, *shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def batchnorm_params(prefix, channels):
    return [
        numpy_helper.from_array(rng.uniform(0.5, 1.5, channels).astype(np.float32), prefix + ".gamma"),
        numpy_helper.from_array(rng.uniform(-0.2, 0.2, channels).astype(np.float32), prefix + ".beta"),
        numpy_helper.from_array(rng.uniform(-0.1, 0.1, channels).astype(np.float32), prefix + ".mean"),
        numpy_helper.from_array(rng.uniform(0.5, 2.0, channels).astype(np.float32), prefix + ".var"),
    ]


def model(name, nodes, inputs, outputs, initializers, opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    m = helper.make_model(graph, producer_name="glimpse-tests",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_VERSION
    return m


def residual_block():
    """Conv+BN+ReLU, Conv+BN, a 1x1 projection on the skip path, Add, ReLU, MaxPool,
    GlobalAveragePool, Flatten, Gemm (transB), Softmax."""
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 12, 12])
    y = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])
    inits = [weight("conv1.w", 8, 4, 3, 3), weight("conv2.w", 8, 8, 3, 3),
             weight("proj.w", 8, 4, 1, 1), weight("proj.b", 8), weight("fc.w", 10, 8),
             weight("fc.b", 10)]
    inits += batchnorm_params("bn1", 8) + batchnorm_params("bn2", 8)
    nodes = [
        helper.make_node("Conv", ["input", "conv1.w"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn1.gamma", "bn1.beta", "bn1.mean", "bn1.var"],
                         ["b1"], name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.w"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c2", "bn2.gamma", "bn2.beta", "bn2.mean", "bn2.var"],
                         ["b2"], name="bn2", epsilon=1e-3),
        helper.make_node("Conv", ["input", "proj.w", "proj.b"], ["p"], name="proj"),
        helper.make_node("Add", ["b2", "p"], ["sum"], name="residual"),
        helper.make_node("Relu", ["sum"], ["r2"], name="relu2"),
        helper.make_node("MaxPool", ["r2"], ["pooled"], name="pool", kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["pooled"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    return model("residual_block", nodes, [x], [y], inits)


def mobile_block(opset):
    """Pointwise expand + ReLU6 (Clip), depthwise 3x3 stride 2 + ReLU6, pointwise project,
    Concat with a pooled skip, AveragePool, Reshape (a constant shape), MatMul with a constant,
    Add of a constant bias. Opset 9 takes Clip's bounds as attributes, 13 as inputs."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 10, 10])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])
    inits = [weight("expand.w", 12, 6, 1, 1), weight("expand.b", 12), weight("dw.w", 12, 1, 3, 3),
             weight("dw.b", 12), weight("project.w", 6, 12, 1, 1), weight("project.b", 6),
             ints("shape", [1, -1]), weight("head.w", 12 * 3 * 3, 5), weight("head.b", 5)]

    def relu6(src, dst, name):
        if opset < 11:
            return helper.make_node("Clip", [src], [dst], name=name, min=0.0, max=6.0)
        return helper.make_node("Clip", [src, "zero", "six"], [dst], name=name)

    if opset >= 11:
        inits += [scalar("zero", 0.0), scalar("six", 6.0)]
    nodes = [
        helper.make_node("Conv", ["x", "expand.w", "expand.b"], ["e"], name="expand"),
        relu6("e", "e6", "expand.relu6"),
        helper.make_node("Conv", ["e6", "dw.w", "dw.b"], ["d"], name="depthwise", group=12,
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        relu6("d", "d6", "depthwise.relu6"),
        helper.make_node("Conv", ["d6", "project.w", "project.b"], ["proj"], name="project"),
        helper.make_node("AveragePool", ["x"], ["skip"], name="skip_pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Concat", ["proj", "skip"], ["cat"], name="concat", axis=1),
        helper.make_node("AveragePool", ["cat"], ["small"], name="pool", kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
        helper.make_node("Reshape", ["small", "shape"], ["flat"], name="reshape"),
        helper.make_node("MatMul", ["flat", "head.w"], ["mm"], name="head"),
        helper.make_node("Add", ["mm", "head.b"], ["y"], name="head.bias"),
    ]
    return model(f"mobile_block_opset{opset}", nodes, [x], [y], inits, opset=opset)


def batched_product():
    """MatMul of two computed tensors (batch_matmul), a ReLU after it, Softmax on the last axis;
    a symbolic batch dimension on both inputs."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", 8, 16])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["batch", 16, 12])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 12])
    nodes = [
        helper.make_node("MatMul", ["a", "b"], ["ab"], name="product"),
        helper.make_node("Relu", ["ab"], ["r"], name="relu"),
        helper.make_node("Softmax", ["r"], ["y"], name="softmax", axis=-1),
    ]
    return model("batched_product", nodes, [a, b], [y], [])


def symbolic_batch():
    x = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 8, 8])
    y = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 4, 8, 8])
    inits = [weight("w", 4, 3, 3, 3), weight("b", 4)]
    nodes = [helper.make_node("Conv", ["images", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["features"], name="relu")]
    return model("symbolic_batch", nodes, [x], [y], inits)


def same_upper():
    """auto_pad SAME_UPPER with stride 2 on an even input: padding 0 before and 1 after."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])
    inits = [weight("w", 3, 2, 3, 3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[2, 2],
                              auto_pad="SAME_UPPER")]
    return model("same_upper", nodes, [x], [y], inits)


def grouped_conv():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 6, 6])
    inits = [weight("w", 8, 2, 3, 3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="grouped", group=2,
                              pads=[1, 1, 1, 1])]
    return model("grouped_conv", nodes, [x], [y], inits)


def unsupported_op():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("LeakyRelu", ["r"], ["y"], name="leaky", alpha=0.1)]
    return model("unsupported_op", nodes, [x], [y], [])


def opset_too_new():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    return model("opset_too_new", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x],
                 [y], [], opset=21)


def run_reference(m, path, feeds_shapes):
    """ONNX Runtime's output for a seeded input, written beside the model."""
    import onnxruntime as ort
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {}
    for name, shape in feeds_shapes.items():
        feeds[name] = rng.standard_normal(shape).astype(np.float32)
    outputs = session.run(None, feeds)
    record = {"inputs": {k: {"shape": list(v.shape), "data": v.ravel().tolist()}
                         for k, v in feeds.items()},
              "outputs": {o.name: {"shape": list(v.shape), "data": v.ravel().tolist()}
                          for o, v in zip(session.get_outputs(), outputs)},
              "made_by": "scripts/onnx/make_test_models.py with onnxruntime " + ort.__version__}
    with open(path, "w") as f:
        json.dump(record, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "tests", "data", "onnx"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runnable = {
        "residual_block": (residual_block(), {"input": [1, 4, 12, 12]}),
        "mobile_block_opset9": (mobile_block(9), {"x": [1, 6, 10, 10]}),
        "mobile_block_opset13": (mobile_block(13), {"x": [1, 6, 10, 10]}),
        "batched_product": (batched_product(), {"a": [3, 8, 16], "b": [3, 16, 12]}),
        "symbolic_batch": (symbolic_batch(), {"images": [2, 3, 8, 8]}),
        "same_upper": (same_upper(), {"x": [1, 2, 8, 8]}),
        "grouped_conv": (grouped_conv(), {"x": [1, 4, 6, 6]}),
    }
    others = {"unsupported_op": unsupported_op(),
              "opset_too_new": opset_too_new()}
    for name, (m, feeds) in runnable.items():
        onnx.checker.check_model(m)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(m, path)
        run_reference(m, os.path.join(args.out, name + ".expected.json"), feeds)
        print("wrote", path)
    for name, m in others.items():
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(m, path)
        print("wrote", path)


if __name__ == "__main__":
    main()
