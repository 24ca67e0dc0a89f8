#!/usr/bin/env python3
"""Writes tests/data/space_python_expressions.json: random restriction expressions with variable
values and the result CPython gives, for tests/space/expression_test.cc (PythonAgreement).

Run from the repository root: python3 tests/space/make_python_expressions.py
A Python exception (ZeroDivisionError, TypeError...) is recorded as {"fail": true}; glimpse's
Expression evaluates those to the int 0 ("not satisfied"). Strings are evaluated as `Text`, a str
that only supports == and != (glimpse's documented subset: string arithmetic, formatting and
ordering are evaluation failures, where Python would concatenate or compare lexicographically).
"""
import json
import math
import random

rng = random.Random(20240611)


class Text(str):
    def _fail(self, *args):
        raise TypeError("unsupported on restriction strings")

    __add__ = __radd__ = __mul__ = __rmul__ = __mod__ = __rmod__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail
    __eq__ = str.__eq__
    __ne__ = str.__ne__
    __hash__ = str.__hash__
INT_VARS = ["a", "b", "c"]
FLOAT_VARS = ["f", "g"]
STR_VARS = ["s", "t"]


def leaf(allow_str):
    r = rng.random()
    if r < 0.45:
        return rng.choice(INT_VARS)
    if r < 0.6:
        return rng.choice(FLOAT_VARS)
    if r < 0.68 and allow_str:
        return rng.choice(STR_VARS + ["'x'", '"y"'])
    if r < 0.9:
        return str(rng.randint(-3, 6))
    return rng.choice(["0.5", "2.5", "1e1", "True", "False"])


def make(depth, allow_str=True):
    if depth == 0 or rng.random() < 0.2:
        return leaf(allow_str)
    k = rng.randrange(10)
    if k == 0:
        return "(" + make(depth - 1) + ")"
    if k == 1:
        return "-" + make(depth - 1)
    if k == 2:
        return "(not " + make(depth - 1) + ")"
    if k in (3, 4):
        op = rng.choice([" + ", " - ", " * ", " / ", " // ", " % "])
        return make(depth - 1) + op + make(depth - 1)
    if k == 5:
        return make(depth - 1) + " ** " + rng.choice(["0", "1", "2", "-1", "(-1)"])
    if k == 6:
        text = make(depth - 1)
        for _ in range(rng.randint(1, 3)):
            text += rng.choice([" < ", " <= ", " > ", " >= ", " == ", " != "]) + make(depth - 1)
        return text
    if k == 7:
        return make(depth - 1) + rng.choice([" and ", " or "]) + make(depth - 1)
    if k == 8:
        return rng.choice(["min", "max"]) + "(" + make(depth - 1) + ", " + make(depth - 1) + ")"
    return "abs(" + make(depth - 1) + ")"


def encode(value):
    if isinstance(value, bool):
        return {"int": int(value)}
    if isinstance(value, int):
        return {"int": value} if abs(value) < 2**62 else None
    if isinstance(value, float):
        return {"float": value} if math.isfinite(value) else None
    if isinstance(value, str):
        return {"str": str(value)}
    return None  # complex and the like: not comparable


cases = []
while len(cases) < 3000:
    text = make(4)
    env = {v: rng.randint(-6, 6) for v in INT_VARS}
    env.update({v: rng.choice([-2.5, -1.0, -0.5, 0.0, 0.5, 1.5, 3.0]) for v in FLOAT_VARS})
    env.update({v: rng.choice(["x", "y"]) for v in STR_VARS})
    scope = {k: Text(v) if isinstance(v, str) else v for k, v in env.items()}
    scope["_X"], scope["_Y"] = Text("x"), Text("y")
    py_text = text.replace("'x'", "_X").replace('"y"', "_Y")
    try:
        result = eval(py_text, {"__builtins__": {"min": min, "max": max, "abs": abs}}, scope)
        expected = encode(result)
        if expected is None:
            continue
    except (ZeroDivisionError, TypeError, OverflowError):
        expected = {"fail": True}
    except (SyntaxError, ValueError):
        continue
    cases.append({"text": text, "values": env, "expected": expected})

with open("tests/data/space_python_expressions.json", "w") as out:
    json.dump({"generator": "tests/space/make_python_expressions.py", "cases": cases}, out,
              indent=0)
print(len(cases), "cases;", sum("fail" in c["expected"] for c in cases), "failures")
