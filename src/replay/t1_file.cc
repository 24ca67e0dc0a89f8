// T1 input files: {"General": {"BenchmarkName"}, "ConfigurationSpace": {"TuningParameters":
// [{"Name", "Type", "Values"}], "Conditions": [{"Expression"}]}}.
//
// "Values" is a JSON list or a Python list expression as a string. The Python forms accepted are
// what T1 files use: a list literal ("[1, 2, 4]"), a comprehension over range
// ("[32 * i for i in range(1, 32)]"), and sums of those ("[1] + [2 * i for i in range(1, 11)]").
// Elements are evaluated with the restriction-expression language (expression.h), so arithmetic,
// string literals and True / False work as in Python.
#include <cctype>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/expression.h"
#include "glimpse/json_fields.h"
#include "glimpse/replay.h"
#include "replay/recorded_file.h"

namespace glimpse {

namespace {

using replay_internal::KnobFromValues;

constexpr const char* kValuesHelp =
    "expected a list, a Python list literal like \"[1, 2, 4]\", a comprehension like "
    "\"[2 * i for i in range(1, 11)]\", or a sum of those";

std::string Trim(const std::string& text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// Splits at `separator` where it is outside brackets, parentheses and quotes.
std::vector<std::string> SplitTopLevel(const std::string& text, char separator) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  parts.push_back(current);
  return parts;
}

Json ScalarToJson(const Scalar& value) {
  switch (value.kind) {
    case Scalar::Kind::kInt:
      return Json(value.i);
    case Scalar::Kind::kFloat:
      return Json(value.f);
    case Scalar::Kind::kString:
      return Json(InternedString(value.i));
  }
  return Json();
}

Scalar Evaluate(const std::string& text, const std::vector<std::string>& names,
                const std::vector<Scalar>& values) {
  Expression expression = Expression::Parse(text);
  expression.Bind(names);
  return expression.Evaluate(values.data());
}

int64_t EvaluateInt(const std::string& text) {
  Scalar value = Evaluate(text, {}, {});
  if (value.kind != Scalar::Kind::kInt)
    throw Error("range() argument '" + text + "' is not an int");
  return value.i;
}

// One bracketed term: a list literal or a comprehension over range().
void AppendTerm(const std::string& term, std::vector<Json>* out) {
  if (term.size() < 2 || term.front() != '[' || term.back() != ']') {
    throw Error(std::string("'") + term + "' is not a list; " + kValuesHelp);
  }
  std::string inner = Trim(term.substr(1, term.size() - 2));
  if (inner.empty()) return;
  // A comprehension: "<expr> for <name> in range(<args>)".
  std::size_t for_at = inner.find(" for ");
  if (for_at != std::string::npos && SplitTopLevel(inner, ',').size() == 1) {
    std::string element = Trim(inner.substr(0, for_at));
    std::string rest = Trim(inner.substr(for_at + 5));
    std::size_t in_at = rest.find(" in ");
    std::string name = in_at == std::string::npos ? "" : Trim(rest.substr(0, in_at));
    std::string range = in_at == std::string::npos ? "" : Trim(rest.substr(in_at + 4));
    if (name.empty() || range.rfind("range(", 0) != 0 || range.back() != ')') {
      throw Error("'" + term + "': only comprehensions over range() are accepted; " + kValuesHelp);
    }
    std::vector<std::string> args = SplitTopLevel(range.substr(6, range.size() - 7), ',');
    if (args.empty() || args.size() > 3) throw Error("'" + range + "' takes 1 to 3 arguments");
    int64_t start = 0;
    int64_t stop = 0;
    int64_t step = 1;
    if (args.size() == 1) {
      stop = EvaluateInt(args[0]);
    } else {
      start = EvaluateInt(args[0]);
      stop = EvaluateInt(args[1]);
      if (args.size() == 3) step = EvaluateInt(args[2]);
    }
    if (step == 0) throw Error("'" + range + "': step must not be zero");
    Expression expression = Expression::Parse(element);
    expression.Bind({name});
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      Scalar variable = Scalar::Int(i);
      out->push_back(ScalarToJson(expression.Evaluate(&variable)));
    }
    return;
  }
  for (const std::string& item : SplitTopLevel(inner, ',')) {
    std::string text = Trim(item);
    if (text.empty()) continue;  // a trailing comma, as Python allows
    out->push_back(ScalarToJson(Evaluate(text, {}, {})));
  }
}

std::vector<Json> ParseValues(const Json& values) {
  if (values.is_array()) return values.get<std::vector<Json>>();
  if (!values.is_string()) throw Error(kValuesHelp);
  std::vector<Json> out;
  for (const std::string& term : SplitTopLevel(values.get<std::string>(), '+')) {
    AppendTerm(Trim(term), &out);
  }
  return out;
}

}  // namespace

T1Space LoadT1File(const std::string& path) {
  std::string text = ReadMaybeGzipFile(path);
  Json document;
  try {
    document = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Error(path + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const Json::exception& e) {  // out_of_range: a number too large for a double
    throw Error(path + ": not valid JSON: " + e.what());
  }
  if (!document.is_object()) throw Error(path + ": a T1 file is a JSON object");
  T1Space t1;
  if (auto general = document.find("General"); general != document.end() && general->is_object()) {
    t1.benchmark_name = general->value("BenchmarkName", "");
  }
  auto space = document.find("ConfigurationSpace");
  if (space == document.end() || !space->is_object()) {
    throw Error(path + ": no \"ConfigurationSpace\" object; expected a T1 input file");
  }
  auto parameters = space->find("TuningParameters");
  if (parameters == space->end() || !parameters->is_array() || parameters->empty()) {
    throw Error(path + ": ConfigurationSpace.TuningParameters must be a non-empty list");
  }
  for (std::size_t i = 0; i < parameters->size(); ++i) {
    const Json& parameter = (*parameters)[i];
    std::string where = path + ": TuningParameters[" + std::to_string(i) + "]";
    if (!parameter.is_object() || !parameter.contains("Name") || !parameter["Name"].is_string()) {
      throw Error(where + " has no \"Name\" string");
    }
    std::string name = parameter["Name"].get<std::string>();
    where += " '" + name + "'";
    if (!parameter.contains("Values")) throw Error(where + " has no \"Values\"");
    std::vector<Json> values;
    try {
      values = ParseValues(parameter["Values"]);
    } catch (const Error& e) {
      throw Error(where + ": Values: " + e.what());
    }
    if (values.empty()) throw Error(where + ": Values is empty");
    // "float" parameters may be written with integral literals ([1, 1.5, 2]).
    if (StringOr(parameter, "Type") == "float") {
      for (Json& value : values) {
        if (value.is_number()) value = value.get<double>();
      }
    }
    try {
      t1.knobs.push_back(KnobFromValues(name, values));
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
  }
  if (auto conditions = space->find("Conditions"); conditions != space->end()) {
    if (!conditions->is_array())
      throw Error(path + ": ConfigurationSpace.Conditions must be a list");
    for (std::size_t i = 0; i < conditions->size(); ++i) {
      const Json& condition = (*conditions)[i];
      if (!condition.is_object() || !condition.contains("Expression") ||
          !condition["Expression"].is_string()) {
        throw Error(path + ": Conditions[" + std::to_string(i) + "] has no \"Expression\" string");
      }
      t1.restrictions.push_back(condition["Expression"].get<std::string>());
    }
  }
  return t1;
}

}  // namespace glimpse
