// Operator workloads: the "op:field=value,…" syntax, JSON, sizes and FLOPs.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "glimpse/cpu.h"
#include "glimpse/error.h"

namespace glimpse {

namespace {

struct FieldSpec {
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

const FieldSpec& SpecOf(const std::string& op) {
  static const FieldSpec kDense{{"M", "N", "K"}, {"bias", "relu"}};
  static const FieldSpec kConv{{"N", "C", "H", "W", "K", "R", "S"},
                               {"stride", "pad", "dilation", "bias", "relu"}};
  if (op == "dense") return kDense;
  if (op == "conv2d") return kConv;
  throw Error("unknown operator '" + op + "'; known: conv2d, dense");
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
      throw Error(op + ": missing field '" + name + "'; required: " +
                  Accepted({spec.required, {}}));
    }
  }
  std::map<std::string, int64_t> out = fields;
  auto default_to = [&](const char* name, int64_t value) { out.emplace(name, value); };
  default_to("bias", 0);
  default_to("relu", 0);
  if (op == "conv2d") {
    default_to("stride", 1);
    default_to("pad", 0);
    default_to("dilation", 1);
  }
  for (const auto& [name, value] : out) {
    bool flag = name == "bias" || name == "relu";
    int64_t lo = flag || name == "pad" ? 0 : 1;
    int64_t hi = flag ? 1 : (int64_t{1} << 20);
    if (value < lo || value > hi) {
      throw Error(op + ": field '" + name + "' is " + std::to_string(value) + "; accepted: " +
                  (flag ? "0 or 1" : "an integer in [" + std::to_string(lo) + ", 1048576]"));
    }
  }
  return out;
}

CpuOp FromFields(const std::string& op, const std::map<std::string, int64_t>& raw) {
  std::map<std::string, int64_t> f = CheckFields(op, raw);
  if (op == "dense") {
    return DenseShape{f["M"], f["N"], f["K"], f["bias"] != 0, f["relu"] != 0};
  }
  Conv2dShape c;
  c.n = f["N"], c.c = f["C"], c.h = f["H"], c.w = f["W"], c.k = f["K"], c.r = f["R"],
  c.s = f["S"];
  c.stride = f["stride"], c.pad = f["pad"], c.dilation = f["dilation"];
  c.bias = f["bias"] != 0, c.relu = f["relu"] != 0;
  if (c.OutH() < 1 || c.OutW() < 1) {
    throw Error("conv2d: fields 'R'/'S' with 'dilation' exceed the padded input (H+2·pad, "
                "W+2·pad); accepted: a kernel window that fits");
  }
  return c;
}

}  // namespace

CpuOp ParseCpuOp(const std::string& text) {
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
      throw Error(op + ": '" + item + "' is not field=value; accepted fields: " +
                  Accepted(SpecOf(op)));
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

std::string CpuOpName(const CpuOp& op) {
  return std::holds_alternative<DenseShape>(op) ? "dense" : "conv2d";
}

Json CpuOpToJson(const CpuOp& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) {
    return {{"op", "dense"}, {"M", d->m}, {"N", d->n}, {"K", d->k},
            {"bias", d->bias ? 1 : 0}, {"relu", d->relu ? 1 : 0}};
  }
  const auto& c = std::get<Conv2dShape>(op);
  return {{"op", "conv2d"}, {"N", c.n}, {"C", c.c}, {"H", c.h}, {"W", c.w}, {"K", c.k},
          {"R", c.r}, {"S", c.s}, {"stride", c.stride}, {"pad", c.pad},
          {"dilation", c.dilation}, {"bias", c.bias ? 1 : 0}, {"relu", c.relu ? 1 : 0}};
}

CpuOp CpuOpFromJson(const Json& json) {
  if (!json.is_object() || !json.contains("op") || !json["op"].is_string()) {
    throw Error("operator description needs a string field 'op'; known: conv2d, dense");
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

std::string CpuOpToString(const CpuOp& op) {
  Json json = CpuOpToJson(op);
  std::string name = json["op"].get<std::string>();
  const FieldSpec& spec = SpecOf(name);
  std::string out = name + ":";
  bool first = true;
  for (const auto* list : {&spec.required, &spec.optional}) {
    for (const std::string& f : *list) {
      out += (first ? "" : ",") + f + "=" + std::to_string(json[f].get<int64_t>());
      first = false;
    }
  }
  return out;
}

int64_t CpuOpReductionLength(const CpuOp& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) return d->k;
  const auto& c = std::get<Conv2dShape>(op);
  return c.c * c.r * c.s;
}

std::vector<int64_t> CpuOpOutputShape(const CpuOp& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) return {d->m, d->n};
  const auto& c = std::get<Conv2dShape>(op);
  return {c.n, c.k, c.OutH(), c.OutW()};
}

std::vector<std::vector<int64_t>> CpuOpInputShapes(const CpuOp& op) {
  std::vector<std::vector<int64_t>> shapes;
  if (const auto* d = std::get_if<DenseShape>(&op)) {
    shapes = {{d->m, d->k}, {d->n, d->k}};
    if (d->bias) shapes.push_back({d->n});
    return shapes;
  }
  const auto& c = std::get<Conv2dShape>(op);
  shapes = {{c.n, c.c, c.h, c.w}, {c.k, c.c, c.r, c.s}};
  if (c.bias) shapes.push_back({c.k});
  return shapes;
}

double CpuOpFlops(const CpuOp& op) {
  double outputs = 1;
  for (int64_t d : CpuOpOutputShape(op)) outputs *= static_cast<double>(d);
  return 2.0 * outputs * static_cast<double>(CpuOpReductionLength(op));
}

std::string CpuDeviceName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "cpu" : line.substr(start);
  }
  return "cpu";
}

}  // namespace glimpse
