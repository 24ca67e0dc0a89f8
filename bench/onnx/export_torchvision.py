#!/usr/bin/env python3
"""Exports torchvision's ResNet-18, ResNet-50 and MobileNet-v2 (weights=None: random weights,
the architectures as torchvision builds them) to ONNX with the standard exporter, batch 1,
3x224x224, opset 17, for issue 18's whole-model benchmark (bench/results/model_compile.md).

    python3 bench/onnx/export_torchvision.py [--out bench/onnx/models] [--models resnet18,...]

Needs torch and torchvision (PyPI); runs outside CI. The weights are seeded (torch.manual_seed),
so a rerun writes the same files.
"""
import argparse
import os

import onnx
import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "models"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--opset", type=int, default=17)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = MODELS[name](weights=None).eval()
        path = os.path.join(args.out, name + ".onnx")
        example = torch.randn(1, 3, 224, 224)
        export_args = dict(input_names=["input"], output_names=["logits"],
                           opset_version=args.opset, do_constant_folding=True)
        try:
            torch.onnx.export(model, example, path, dynamo=False, **export_args)
        except TypeError:  # a torch without the dynamo switch
            torch.onnx.export(model, example, path, **export_args)
        m = onnx.load(path)
        # Debian's libonnx 1.12 reads IR version 8 (opset 17 needs nothing newer).
        m.ir_version = min(m.ir_version, 8)
        onnx.checker.check_model(m)
        onnx.save(m, path)
        print(f"wrote {path} (torch {torch.__version__}, torchvision {torchvision.__version__}, "
              f"opset {args.opset}, {os.path.getsize(path) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
