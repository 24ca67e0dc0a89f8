#include "py_json.h"

#include <nanobind/stl/string.h>

#include <cmath>
#include <limits>

namespace nb = nanobind;

namespace glimpse::python {

Json ToJson(nb::handle object, const std::string& where) {
  if (object.is_none()) return nullptr;
  if (nb::isinstance<nb::bool_>(object)) return nb::cast<bool>(object);
  if (nb::isinstance<nb::int_>(object)) {
    try {
      return nb::cast<int64_t>(object);
    } catch (const nb::cast_error&) {
      throw nb::value_error((where + ": the integer does not fit in 64 bits").c_str());
    }
  }
  if (nb::isinstance<nb::float_>(object)) return nb::cast<double>(object);
  if (nb::isinstance<nb::str>(object)) return nb::cast<std::string>(object);
  if (nb::isinstance<nb::list>(object) || nb::isinstance<nb::tuple>(object)) {
    Json array = Json::array();
    size_t index = 0;
    for (nb::handle item : object) {
      array.push_back(ToJson(item, where + "[" + std::to_string(index++) + "]"));
    }
    return array;
  }
  if (nb::isinstance<nb::dict>(object)) {
    Json dict = Json::object();
    for (auto [key, value] : nb::borrow<nb::dict>(object)) {
      if (!nb::isinstance<nb::str>(key)) {
        throw nb::type_error((where + ": dictionary keys must be str").c_str());
      }
      std::string name = nb::cast<std::string>(key);
      dict[name] = ToJson(value, where + "['" + name + "']");
    }
    return dict;
  }
  // numpy scalars and other numbers: integers first (numpy.int64 has __index__).
  if (nb::hasattr(object, "__index__")) {
    return ToJson(nb::int_(nb::borrow(object)), where);
  }
  if (nb::hasattr(object, "__float__")) {
    return nb::cast<double>(nb::float_(nb::borrow(object)));
  }
  std::string type = nb::cast<std::string>(nb::str(object.type().attr("__name__")));
  throw nb::type_error((where + ": a value of type '" + type +
                        "' cannot be passed to glimpse; accepted: None, bool, int, float, str, "
                        "list, tuple, dict")
                           .c_str());
}

nb::object ToPython(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      return nb::none();
    case Json::value_t::boolean:
      return nb::bool_(json.get<bool>());
    case Json::value_t::number_integer:
      return nb::int_(json.get<int64_t>());
    case Json::value_t::number_unsigned:
      return nb::int_(json.get<uint64_t>());
    case Json::value_t::number_float:
      return nb::float_(json.get<double>());
    case Json::value_t::string: {
      const std::string& text = json.get_ref<const std::string&>();
      return nb::str(text.data(), text.size());
    }
    case Json::value_t::array: {
      nb::list list;
      for (const Json& item : json) list.append(ToPython(item));
      return list;
    }
    case Json::value_t::object: {
      nb::dict dict;
      for (auto it = json.begin(); it != json.end(); ++it) {
        dict[nb::str(it.key().data(), it.key().size())] = ToPython(*it);
      }
      return dict;
    }
    case Json::value_t::binary:
      break;
  }
  throw nb::type_error("glimpse returned a binary JSON value, which Python cannot take");
}

}  // namespace glimpse::python
