// Operator workloads: the "op:field=value,…" syntax, JSON, sizes and FLOPs.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/ops.h"

namespace glimpse {

namespace {

struct FieldSpec {
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

const FieldSpec& SpecOf(const std::string& op) {
  static const FieldSpec kDense{{"M", "N", "K"}, {"bias", "relu", "residual", "relu6"}};
  static const FieldSpec kConv{
      {"N", "C", "H", "W", "K", "R", "S"},
      {"stride", "pad", "dilation", "bias", "relu", "residual", "relu6", "in_block", "out_block"}};
  static const FieldSpec kDepthwise{
      {"N", "C", "H", "W", "R", "S"},
      {"stride", "pad", "dilation", "bias", "relu", "residual", "relu6", "in_block", "out_block"}};
  static const FieldSpec kBatchMatmul{{"B", "M", "N", "K"}, {"bias", "relu", "residual", "relu6"}};
  if (op == "dense") return kDense;
  if (op == "conv2d") return kConv;
  if (op == "depthwise_conv2d") return kDepthwise;
  if (op == "batch_matmul") return kBatchMatmul;
  throw Error("unknown operator '" + op +
              "'; known: batch_matmul, conv2d, depthwise_conv2d, dense");
}

bool IsBlockField(const std::string& field) { return field == "in_block" || field == "out_block"; }

// The epilogue fields (and the activation blocks) that appear in the canonical form and in JSON
// only when set: workloads named before they existed keep their names (and their tuning records).
bool WrittenOnlyWhenSet(const std::string& field) {
  return field == "residual" || field == "relu6" || IsBlockField(field);
}

std::string Accepted(const FieldSpec& spec) {
  std::string out;
  for (const auto* list : {&spec.required, &spec.optional}) {
    for (const std::string& f : *list) out += (out.empty() ? "" : ", ") + f;
  }
  return out;
}

// Checks names and ranges and returns the fields with defaults filled in.
std::map<std::string, int64_t> CheckFields(const std::string& op,
                                           const std::map<std::string, int64_t>& fields) {
  const FieldSpec& spec = SpecOf(op);
  std::set<std::string> known(spec.required.begin(), spec.required.end());
  known.insert(spec.optional.begin(), spec.optional.end());
  for (const auto& [name, value] : fields) {
    if (!known.count(name)) {
      throw Error(op + ": unknown field '" + name + "'; accepted: " + Accepted(spec));
    }
  }
  for (const std::string& name : spec.required) {
    if (!fields.count(name)) {
      throw Error(op + ": missing field '" + name +
                  "'; required: " + Accepted({spec.required, {}}));
    }
  }
  std::map<std::string, int64_t> out = fields;
  auto default_to = [&](const char* name, int64_t value) { out.emplace(name, value); };
  default_to("bias", 0);
  default_to("relu", 0);
  default_to("residual", 0);
  default_to("relu6", 0);
  if (op == "conv2d" || op == "depthwise_conv2d") {
    default_to("stride", 1);
    default_to("pad", 0);
    default_to("dilation", 1);
    default_to("in_block", 0);
    default_to("out_block", 0);
  }
  for (const auto& [name, value] : out) {
    bool flag = name == "bias" || name == "relu" || name == "residual" || name == "relu6";
    int64_t lo = flag || name == "pad" || IsBlockField(name) ? 0 : 1;
    int64_t hi = flag ? 1 : (int64_t{1} << 20);
    if (value < lo || value > hi) {
      throw Error(op + ": field '" + name + "' is " + std::to_string(value) + "; accepted: " +
                  (flag ? "0 or 1" : "an integer in [" + std::to_string(lo) + ", 1048576]"));
    }
  }
  if (out["relu"] != 0 && out["relu6"] != 0) {
    throw Error(op +
                ": fields 'relu' and 'relu6' are both 1; accepted: one of them (relu6 already "
                "clamps at 0)");
  }
  return out;
}

// The epilogue's fields of `shape` from checked fields.
template <typename Shape>
void SetEpilogue(Shape& shape, std::map<std::string, int64_t>& f) {
  shape.bias = f["bias"] != 0, shape.relu = f["relu"] != 0;
  shape.residual = f["residual"] != 0, shape.relu6 = f["relu6"] != 0;
}

// The activation blocks of a convolution from checked fields: each divides the channels it blocks
// (`out_channels`: K, or C for depthwise, whose two blocks must be equal).
template <typename Shape>
void SetBlocks(const std::string& op, Shape& shape, std::map<std::string, int64_t>& f,
               int64_t out_channels) {
  shape.in_block = f["in_block"], shape.out_block = f["out_block"];
  auto check = [&](const char* field, int64_t block, const char* channels, int64_t count) {
    if (block != 0 && count % block != 0) {
      throw Error(op + ": field '" + field + "' is " + std::to_string(block) +
                  "; accepted: 0 (NCHW) or a divisor of " + channels + " = " +
                  std::to_string(count));
    }
  };
  check("in_block", shape.in_block, "C", shape.c);
  check("out_block", shape.out_block, op == "conv2d" ? "K" : "C", out_channels);
  if (op == "depthwise_conv2d" && shape.in_block != shape.out_block) {
    throw Error(op + ": fields 'in_block' (" + std::to_string(shape.in_block) +
                ") and 'out_block' (" + std::to_string(shape.out_block) +
                ") differ; accepted: the same block for input and output");
  }
}

// Every tensor's element count — the inputs as OperatorInputShapes lists them, then the output —
// multiplied in floating point, so that absurd fields cannot overflow here.
std::vector<double> TensorElementCounts(const Operator& op) {
  const auto count = [](const std::vector<int64_t>& shape) {
    double product = 1;
    for (int64_t d : shape) product *= static_cast<double>(std::max<int64_t>(0, d));
    return product;
  };
  std::vector<double> counts;
  for (const std::vector<int64_t>& shape : OperatorInputShapes(op)) counts.push_back(count(shape));
  counts.push_back(count(OperatorOutputShape(op)));
  return counts;
}

// A tensor of 2^62 elements or more cannot be indexed by the kernels' 64-bit indices (nor
// allocated anywhere): refused when the operator is read, with the offending count.
Operator CheckTensorCounts(const std::string& name, Operator op) {
  constexpr double kLimit = 4611686018427387904.0;  // 2^62
  for (double count : TensorElementCounts(op)) {
    if (count >= kLimit) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.3g", count);
      throw Error(name + ": a tensor of " + text +
                  " elements; accepted: shapes whose tensors have fewer than 2^62 elements");
    }
  }
  return op;
}

Operator FromFields(const std::string& op, const std::map<std::string, int64_t>& raw) {
  std::map<std::string, int64_t> f = CheckFields(op, raw);
  if (op == "dense") {
    DenseShape d{f["M"], f["N"], f["K"]};
    SetEpilogue(d, f);
    return CheckTensorCounts(op, d);
  }
  if (op == "batch_matmul") {
    BatchMatmulShape b{f["B"], f["M"], f["N"], f["K"]};
    SetEpilogue(b, f);
    return CheckTensorCounts(op, b);
  }
  auto check_window = [&op](int64_t out_h, int64_t out_w) {
    if (out_h < 1 || out_w < 1) {
      throw Error(op +
                  ": fields 'R'/'S' with 'dilation' exceed the padded input (H+2·pad, "
                  "W+2·pad); accepted: a kernel window that fits");
    }
  };
  if (op == "depthwise_conv2d") {
    DepthwiseConv2dShape d;
    d.n = f["N"], d.c = f["C"], d.h = f["H"], d.w = f["W"], d.r = f["R"], d.s = f["S"];
    d.stride = f["stride"], d.pad = f["pad"], d.dilation = f["dilation"];
    SetEpilogue(d, f);
    SetBlocks(op, d, f, d.c);
    check_window(d.OutH(), d.OutW());
    return CheckTensorCounts(op, d);
  }
  Conv2dShape c;
  c.n = f["N"], c.c = f["C"], c.h = f["H"], c.w = f["W"], c.k = f["K"], c.r = f["R"], c.s = f["S"];
  c.stride = f["stride"], c.pad = f["pad"], c.dilation = f["dilation"];
  SetEpilogue(c, f);
  SetBlocks(op, c, f, c.k);
  check_window(c.OutH(), c.OutW());
  return CheckTensorCounts(op, c);
}

// Applies `visitor` to the operator's shape (one overload per operator).
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace

Operator ParseOperator(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw Error("operator '" + text + "' has no ':'; expected e.g. dense:M=1,N=1000,K=512");
  }
  std::string op = text.substr(0, colon);
  SpecOf(op);
  std::map<std::string, int64_t> fields;
  std::stringstream rest(text.substr(colon + 1));
  std::string item;
  while (std::getline(rest, item, ',')) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (eq == std::string::npos || name.empty()) {
      throw Error(op + ": '" + item +
                  "' is not field=value; accepted fields: " + Accepted(SpecOf(op)));
    }
    std::string value = item.substr(eq + 1);
    size_t used = 0;
    int64_t number = 0;
    try {
      number = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size()) {
      throw Error(op + ": field '" + name + "' has value '" + value + "'; accepted: an integer");
    }
    if (!fields.emplace(name, number).second) {
      throw Error(op + ": field '" + name + "' is given twice");
    }
  }
  return FromFields(op, fields);
}

std::string OperatorName(const Operator& op) {
  return std::visit(Overloaded{[](const DenseShape&) { return "dense"; },
                               [](const Conv2dShape&) { return "conv2d"; },
                               [](const DepthwiseConv2dShape&) { return "depthwise_conv2d"; },
                               [](const BatchMatmulShape&) { return "batch_matmul"; }},
                    op);
}

Json OperatorToJson(const Operator& op) {
  auto flag = [](bool b) { return b ? 1 : 0; };
  Json json = std::visit(Overloaded{[&](const DenseShape& d) -> Json {
                                      return {{"op", "dense"},
                                              {"M", d.m},
                                              {"N", d.n},
                                              {"K", d.k},
                                              {"bias", flag(d.bias)},
                                              {"relu", flag(d.relu)}};
                                    },
                                    [&](const Conv2dShape& c) -> Json {
                                      return {{"op", "conv2d"},
                                              {"N", c.n},
                                              {"C", c.c},
                                              {"H", c.h},
                                              {"W", c.w},
                                              {"K", c.k},
                                              {"R", c.r},
                                              {"S", c.s},
                                              {"stride", c.stride},
                                              {"pad", c.pad},
                                              {"dilation", c.dilation},
                                              {"bias", flag(c.bias)},
                                              {"relu", flag(c.relu)}};
                                    },
                                    [&](const DepthwiseConv2dShape& d) -> Json {
                                      return {{"op", "depthwise_conv2d"},
                                              {"N", d.n},
                                              {"C", d.c},
                                              {"H", d.h},
                                              {"W", d.w},
                                              {"R", d.r},
                                              {"S", d.s},
                                              {"stride", d.stride},
                                              {"pad", d.pad},
                                              {"dilation", d.dilation},
                                              {"bias", flag(d.bias)},
                                              {"relu", flag(d.relu)}};
                                    },
                                    [&](const BatchMatmulShape& b) -> Json {
                                      return {{"op", "batch_matmul"},
                                              {"B", b.b},
                                              {"M", b.m},
                                              {"N", b.n},
                                              {"K", b.k},
                                              {"bias", flag(b.bias)},
                                              {"relu", flag(b.relu)}};
                                    }},
                         op);
  std::visit(
      [&](const auto& shape) {
        if (shape.residual) json["residual"] = 1;
        if (shape.relu6) json["relu6"] = 1;
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Conv2dShape> ||
                      std::is_same_v<Shape, DepthwiseConv2dShape>) {
          if (shape.in_block != 0) json["in_block"] = shape.in_block;
          if (shape.out_block != 0) json["out_block"] = shape.out_block;
        }
      },
      op);
  return json;
}

Operator OperatorFromJson(const Json& json) {
  if (!json.is_object() || !json.contains("op") || !json["op"].is_string()) {
    throw Error(
        "operator description needs a string field 'op'; known: batch_matmul, conv2d, "
        "depthwise_conv2d, dense");
  }
  std::string op = json["op"].get<std::string>();
  std::map<std::string, int64_t> fields;
  for (const auto& [name, value] : json.items()) {
    if (name == "op" || name == "target") continue;
    if (!value.is_number_integer()) {
      throw Error(op + ": field '" + name + "' must be an integer");
    }
    fields[name] = value.get<int64_t>();
  }
  return FromFields(op, fields);
}

std::string OperatorToString(const Operator& op) {
  Json json = OperatorToJson(op);
  std::string name = json["op"].get<std::string>();
  const FieldSpec& spec = SpecOf(name);
  std::string out = name + ":";
  bool first = true;
  for (const auto* list : {&spec.required, &spec.optional}) {
    for (const std::string& f : *list) {
      if (WrittenOnlyWhenSet(f) && !json.contains(f)) continue;
      out += (first ? "" : ",") + f + "=" + std::to_string(json[f].get<int64_t>());
      first = false;
    }
  }
  return out;
}

namespace {

// [N][C][H][W], or [N][C/block][H][W][block] with a block.
std::vector<int64_t> ActivationShape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t block) {
  if (block == 0) return {n, c, h, w};
  return {n, c / block, h, w, block};
}

// Copies between the plain and the blocked order of a [N][C][H][W] tensor; `to_blocked` picks the
// direction.
template <typename T>
std::vector<T> Reblock(const std::vector<T>& from, const std::vector<int64_t>& shape, int64_t block,
                       bool to_blocked) {
  if (shape.size() != 4) throw Error("a channel-blocked tensor needs an NCHW shape");
  const int64_t n = shape[0], c = shape[1], plane = shape[2] * shape[3];
  if (static_cast<int64_t>(from.size()) != n * c * plane) {
    throw Error("a tensor of " + std::to_string(from.size()) + " elements for a shape of " +
                std::to_string(n * c * plane));
  }
  if (block == 0) return from;
  if (block < 0 || c % block != 0) {
    throw Error("channel block " + std::to_string(block) +
                " does not divide C = " + std::to_string(c));
  }
  std::vector<T> to(from.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < plane; ++p) {
        const int64_t plain = (b * c + ch) * plane + p;
        const int64_t blocked = ((b * (c / block) + ch / block) * plane + p) * block + ch % block;
        if (to_blocked) {
          to[blocked] = from[plain];
        } else {
          to[plain] = from[blocked];
        }
      }
    }
  }
  return to;
}

}  // namespace

template <typename T>
std::vector<T> BlockChannels(const std::vector<T>& plain, const std::vector<int64_t>& plain_shape,
                             int64_t block) {
  return Reblock(plain, plain_shape, block, true);
}

template <typename T>
std::vector<T> UnblockChannels(const std::vector<T>& blocked,
                               const std::vector<int64_t>& plain_shape, int64_t block) {
  return Reblock(blocked, plain_shape, block, false);
}

template std::vector<float> BlockChannels(const std::vector<float>&, const std::vector<int64_t>&,
                                          int64_t);
template std::vector<double> BlockChannels(const std::vector<double>&, const std::vector<int64_t>&,
                                           int64_t);
template std::vector<float> UnblockChannels(const std::vector<float>&, const std::vector<int64_t>&,
                                            int64_t);
template std::vector<double> UnblockChannels(const std::vector<double>&,
                                             const std::vector<int64_t>&, int64_t);

bool OperatorHasBlockedLayout(const Operator& op) {
  return std::visit(
      Overloaded{[](const Conv2dShape& c) { return c.in_block || c.out_block; },
                 [](const DepthwiseConv2dShape& d) { return d.in_block || d.out_block; },
                 [](const auto&) { return false; }},
      op);
}

Operator OperatorInPlainLayout(Operator op) {
  if (auto* c = std::get_if<Conv2dShape>(&op)) c->in_block = c->out_block = 0;
  if (auto* d = std::get_if<DepthwiseConv2dShape>(&op)) d->in_block = d->out_block = 0;
  return op;
}

int64_t OperatorReductionLength(const Operator& op) {
  return std::visit(Overloaded{[](const DenseShape& d) { return d.k; },
                               [](const Conv2dShape& c) { return c.c * c.r * c.s; },
                               [](const DepthwiseConv2dShape& d) { return d.r * d.s; },
                               [](const BatchMatmulShape& b) { return b.k; }},
                    op);
}

std::vector<int64_t> OperatorOutputShape(const Operator& op) {
  return std::visit(Overloaded{[](const DenseShape& d) {
                                 return std::vector<int64_t>{d.m, d.n};
                               },
                               [](const Conv2dShape& c) {
                                 return ActivationShape(c.n, c.k, c.OutH(), c.OutW(), c.out_block);
                               },
                               [](const DepthwiseConv2dShape& d) {
                                 return ActivationShape(d.n, d.c, d.OutH(), d.OutW(), d.out_block);
                               },
                               [](const BatchMatmulShape& b) {
                                 return std::vector<int64_t>{b.b, b.m, b.n};
                               }},
                    op);
}

std::vector<std::vector<int64_t>> OperatorInputShapes(const Operator& op) {
  using Shapes = std::vector<std::vector<int64_t>>;
  Shapes shapes = std::visit(
      Overloaded{[](const DenseShape& d) {
                   Shapes s{{d.m, d.k}, {d.n, d.k}};
                   if (d.bias) s.push_back({d.n});
                   return s;
                 },
                 [](const Conv2dShape& c) {
                   Shapes s{ActivationShape(c.n, c.c, c.h, c.w, c.in_block), {c.k, c.c, c.r, c.s}};
                   if (c.bias) s.push_back({c.k});
                   return s;
                 },
                 [](const DepthwiseConv2dShape& d) {
                   Shapes s{ActivationShape(d.n, d.c, d.h, d.w, d.in_block), {d.c, d.r, d.s}};
                   if (d.bias) s.push_back({d.c});
                   return s;
                 },
                 [](const BatchMatmulShape& b) {
                   Shapes s{{b.b, b.m, b.k}, {b.b, b.n, b.k}};
                   if (b.bias) s.push_back({b.n});
                   return s;
                 }},
      op);
  if (OperatorResidualInput(op) >= 0) shapes.push_back(OperatorOutputShape(op));
  return shapes;
}

int OperatorBiasInput(const Operator& op) {
  return std::visit([](const auto& shape) { return shape.bias ? 2 : -1; }, op);
}

int OperatorResidualInput(const Operator& op) {
  return std::visit([](const auto& shape) { return shape.residual ? (shape.bias ? 3 : 2) : -1; },
                    op);
}

bool OperatorInputIsConstant(const Operator& op, int index) {
  if (index == OperatorBiasInput(op)) return true;
  return index == 1 && !std::holds_alternative<BatchMatmulShape>(op);
}

Operator OperatorWithoutEpilogue(Operator op) {
  std::visit(
      [](auto& shape) {
        shape.bias = false;
        shape.relu = false;
        shape.relu6 = false;
        shape.residual = false;
      },
      op);
  return op;
}

double OperatorFlops(const Operator& op) {
  double outputs = 1;
  for (int64_t d : OperatorOutputShape(op)) outputs *= static_cast<double>(d);
  return 2.0 * outputs * static_cast<double>(OperatorReductionLength(op));
}

namespace {

// Pairs (output position, filter tap) along one axis whose input index lies inside [0, size).
int64_t TapsInsideImage(int64_t size, int64_t out, int64_t taps, int64_t stride, int64_t pad,
                        int64_t dilation) {
  int64_t inside = 0;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t i = o * stride - pad + t * dilation;
      inside += (i >= 0 && i < size) ? 1 : 0;
    }
  }
  return inside;
}

}  // namespace

double OperatorFlopsInsideImage(const Operator& op) {
  return std::visit(Overloaded{[](const Conv2dShape& c) {
                                 return 2.0 * static_cast<double>(c.n * c.k * c.c) *
                                        static_cast<double>(TapsInsideImage(
                                            c.h, c.OutH(), c.r, c.stride, c.pad, c.dilation)) *
                                        static_cast<double>(TapsInsideImage(
                                            c.w, c.OutW(), c.s, c.stride, c.pad, c.dilation));
                               },
                               [](const DepthwiseConv2dShape& d) {
                                 return 2.0 * static_cast<double>(d.n * d.c) *
                                        static_cast<double>(TapsInsideImage(
                                            d.h, d.OutH(), d.r, d.stride, d.pad, d.dilation)) *
                                        static_cast<double>(TapsInsideImage(
                                            d.w, d.OutW(), d.s, d.stride, d.pad, d.dilation));
                               },
                               [&op](const auto&) { return OperatorFlops(op); }},
                    op);
}

OperatorBytes OperatorTensorBytes(const Operator& op) {
  const std::vector<double> counts = TensorElementCounts(op);
  OperatorBytes bytes;
  for (size_t i = 0; i + 1 < counts.size(); ++i) bytes.inputs += 4.0 * counts[i];
  bytes.output = 4.0 * counts.back();
  return bytes;
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 6) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%.0f B", bytes);
  } else {
    std::snprintf(text, sizeof(text), "%.1f %s", bytes, units[unit]);
  }
  return text;
}

void CheckOperatorFitsMemory(const Operator& op, double available, const std::string& where) {
  if (available <= 0) return;  // unknown: nothing to check against
  const OperatorBytes bytes = OperatorTensorBytes(op);
  if (bytes.Total() <= available) return;
  throw Error(OperatorToString(op) + ": its tensors take " + FormatBytes(bytes.Total()) +
              " (inputs " + FormatBytes(bytes.inputs) + ", output " + FormatBytes(bytes.output) +
              "), more than the " + FormatBytes(available) + " of " + where +
              "; it cannot be measured there");
}

MeasurementBytes OperatorMeasurementBytes(const Operator& op, double flush_bytes) {
  MeasurementBytes bytes;
  bytes.tensors = OperatorTensorBytes(op);
  // The output's float32 bytes, as doubles, twice: the reference value and its magnitude.
  bytes.reference = bytes.tensors.output / 4.0 * 16.0;
  bytes.flush = std::max(flush_bytes, 0.0);
  return bytes;
}

void CheckMeasurementFitsMemory(const Operator& op, const MeasurementBytes& bytes, double available,
                                const std::string& where) {
  CheckOperatorFitsMemory(op, available, where);
  if (available <= 0 || bytes.Total() <= available) return;
  // The parts this memory holds (a GPU's has no reference, a host without a flush none).
  std::string parts = "its tensors " + FormatBytes(bytes.tensors.Total());
  if (bytes.reference > 0) {
    parts += ", the reference its output is checked against " + FormatBytes(bytes.reference);
  }
  if (bytes.flush > 0) parts += ", the cache flush " + FormatBytes(bytes.flush);
  throw Error(OperatorToString(op) + ": measuring it takes " + FormatBytes(bytes.Total()) + " (" +
              parts + "), more than the " + FormatBytes(available) + " of " + where +
              "; it cannot be measured there");
}

void CheckWorkspaceFitsMemory(const MeasurementBytes& measurement, double prepared_bytes,
                              double scratch_bytes, double available, const std::string& where) {
  const double workspace = prepared_bytes + scratch_bytes;
  if (available <= 0 || measurement.Total() + workspace <= available) return;
  const std::string parts = scratch_bytes > 0 ? " (packed weights " + FormatBytes(prepared_bytes) +
                                                    ", scratch " + FormatBytes(scratch_bytes) + ")"
                                              : " (prepared weights)";
  throw Error("the configuration's workspace takes " + FormatBytes(workspace) + parts +
              "; with the " + FormatBytes(measurement.Total()) +
              " the measurement holds, more than the " + FormatBytes(available) + " of " + where);
}

}  // namespace glimpse
