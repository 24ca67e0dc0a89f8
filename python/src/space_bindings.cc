// glimpse.Space: a search space from a Kernel Tuner-style `tune_params` dict and restriction
// strings (Kernel Tuner's expression syntax), and configurations as dicts by knob name.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/error.h"
#include "glimpse/random.h"
#include "py_json.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

// One knob of `tune_params`: ordered when every value is a number (as Kernel Tuner caches are
// read), categorical otherwise.
Knob KnobFromValues(const std::string& name, nb::handle values) {
  const std::string where = "tune_params['" + name + "']";
  Json list = ToJson(values, where);
  if (!list.is_array() || list.empty()) {
    throw Error(where + ": expected a non-empty list of values");
  }
  bool numeric = true;
  std::vector<KnobValue> knob_values;
  for (const Json& value : list) {
    if (value.is_number_integer()) {
      knob_values.emplace_back(value.get<int64_t>());
    } else if (value.is_number_float()) {
      knob_values.emplace_back(value.get<double>());
    } else if (value.is_string()) {
      numeric = false;
      knob_values.emplace_back(value.get<std::string>());
    } else {
      throw Error(where + ": value " + value.dump() +
                  " is not accepted; values are int, float or str");
    }
  }
  return numeric ? Knob::Ordered(name, std::move(knob_values))
                 : Knob::Categorical(name, std::move(knob_values));
}

ConfigSpace SpaceFromTuneParams(const nb::dict& tune_params,
                                const std::vector<std::string>& restrictions) {
  if (tune_params.size() == 0) throw Error("tune_params: expected at least one parameter");
  ConfigSpace space;
  for (auto [key, values] : tune_params) {
    if (!nb::isinstance<nb::str>(key)) throw Error("tune_params: parameter names must be str");
    space.AddKnob(KnobFromValues(nb::cast<std::string>(key), values));
  }
  for (const std::string& restriction : restrictions) space.AddRestriction(restriction);
  return space;
}

nb::ndarray<nb::numpy, double, nb::ndim<2>> FeatureMatrix(const ConfigSpace& space,
                                                          const nb::list& configs,
                                                          FeatureKind kind) {
  const size_t rows = configs.size();
  const size_t width = static_cast<size_t>(space.FeatureWidth(kind));
  auto* data = new std::vector<double>(rows * width);
  nb::capsule owner(data, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  for (size_t row = 0; row < rows; ++row) {
    Config config = ConfigFromPython(space, configs[row], "configs[" + std::to_string(row) + "]");
    space.WriteFeatures(config, kind, data->data() + row * width);
  }
  return nb::ndarray<nb::numpy, double, nb::ndim<2>>(data->data(), {rows, width}, owner);
}

}  // namespace

Config ConfigFromPython(const ConfigSpace& space, nb::handle config, const std::string& where) {
  if (!nb::isinstance<nb::dict>(config)) {
    throw Error(where + ": a configuration is a dict of knob name → value");
  }
  try {
    return space.ConfigFromJson(ToJson(config, where));
  } catch (const Error& error) {
    throw Error(where + ": " + error.what());
  }
}

nb::dict ConfigToPython(const ConfigSpace& space, const Config& config) {
  return nb::borrow<nb::dict>(ToPython(space.ConfigToJson(config)));
}

nb::list ConfigsToPython(const ConfigSpace& space, const std::vector<Config>& configs) {
  nb::list list;
  for (const Config& config : configs) list.append(ConfigToPython(space, config));
  return list;
}

void BindSpace(nb::module_& m) {
  nb::class_<ConfigSpace>(m, "Space",
                          "A search space: knobs (Kernel Tuner's tune_params) and restrictions.")
      .def(
          "__init__",
          [](ConfigSpace* self, const nb::dict& tune_params,
             const std::vector<std::string>& restrictions) {
            new (self) ConfigSpace(SpaceFromTuneParams(tune_params, restrictions));
          },
          nb::arg("tune_params"), nb::arg("restrictions") = std::vector<std::string>{},
          "tune_params: {name: [values]} (ints/floats → an ordered knob, any str → categorical); "
          "restrictions: Kernel Tuner expressions over the names, e.g. 'block_x * block_y <= "
          "1024'.")
      .def_static(
          "from_json", [](nb::handle json) { return ConfigSpace::FromJson(ToJson(json, "space")); },
          nb::arg("json"), "A space from the JSON that to_json() (and glimpse's files) write.")
      .def("to_json", [](const ConfigSpace& space) { return ToPython(space.ToJson()); })
      .def_prop_ro("knob_names",
                   [](const ConfigSpace& space) {
                     std::vector<std::string> names;
                     for (const Knob& knob : space.knobs()) names.push_back(knob.name());
                     return names;
                   })
      .def_prop_ro("tune_params",
                   [](const ConfigSpace& space) {
                     nb::dict params;
                     for (const Knob& knob : space.knobs()) {
                       nb::list values;
                       for (const KnobValue& value : knob.values()) {
                         values.append(ToPython(KnobValueToJson(value)));
                       }
                       params[knob.name().c_str()] = values;
                     }
                     return params;
                   })
      .def_prop_ro("restrictions", &ConfigSpace::restrictions)
      .def_prop_ro(
          "raw_size", [](const ConfigSpace& space) { return space.RawSize(); },
          "The product of the knobs' sizes (restrictions ignored).")
      .def("count_valid", &ConfigSpace::CountValid,
           "The number of configurations that satisfy every restriction (enumerates).")
      .def(
          "is_valid",
          [](const ConfigSpace& space, nb::handle config) {
            return space.IsValid(ConfigFromPython(space, config, "config"));
          },
          nb::arg("config"))
      .def(
          "sample",
          [](const ConfigSpace& space, size_t n, uint64_t seed) {
            Rng rng(seed);
            std::vector<Config> configs;
            for (size_t i = 0; i < n; ++i) {
              std::optional<Config> config = space.SampleValid(rng);
              if (!config) throw Error("the space has no valid configuration (none in 10^7 draws)");
              configs.push_back(std::move(*config));
            }
            return ConfigsToPython(space, configs);
          },
          nb::arg("n"), nb::arg("seed") = 0,
          "n configurations drawn uniformly from the valid ones (with replacement).")
      .def(
          "neighbours",
          [](const ConfigSpace& space, nb::handle config) {
            return ConfigsToPython(space,
                                   space.Neighbours(ConfigFromPython(space, config, "config")));
          },
          nb::arg("config"), "The valid configurations one knob step away.")
      .def(
          "features",
          [](const ConfigSpace& space, const nb::list& configs, const std::string& kind) {
            if (kind != "values" && kind != "indices") {
              throw Error("features: kind '" + kind + "' is not known; accepted: values, indices");
            }
            return FeatureMatrix(
                space, configs,
                kind == "values" ? FeatureKind::kKnobValues : FeatureKind::kKnobIndices);
          },
          nb::arg("configs"), nb::arg("kind") = "values",
          "A numpy array (len(configs) × width) of the configurations' knob features.")
      .def(
          "feature_names",
          [](const ConfigSpace& space, const std::string& kind) {
            return space.FeatureNames(kind == "indices" ? FeatureKind::kKnobIndices
                                                        : FeatureKind::kKnobValues);
          },
          nb::arg("kind") = "values")
      .def(
          "config_string",
          [](const ConfigSpace& space, nb::handle config) {
            return space.ConfigToString(ConfigFromPython(space, config, "config"));
          },
          nb::arg("config"))
      .def("__repr__", [](const ConfigSpace& space) {
        std::string names;
        for (const Knob& knob : space.knobs()) {
          names +=
              (names.empty() ? "" : ", ") + knob.name() + "[" + std::to_string(knob.size()) + "]";
        }
        return "Space(" + names + "; " + std::to_string(space.restrictions().size()) +
               " restrictions)";
      });
}

}  // namespace glimpse::python
