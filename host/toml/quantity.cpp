#include "host/toml/quantity.hpp"

#include <cmath>

#include <fmt/format.h>

namespace caldera::input {

namespace {
constexpr const char* kQuantity =
    "a quantity such as \"2\", \"500m\", \"4Gi\", \"1G\" or \"1e3\" (a string or a number)";
}

double quantity(const Value& v, std::string_view resource, AmountParser parse) {
  std::string text;
  const toml::node& n = v.node();
  if (const auto* s = n.as_string()) {
    text = s->get();
  } else if (const auto* i = n.as_integer()) {
    text = std::to_string(i->get());
  } else if (const auto* f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) v.fail(fmt::format("{} is not finite", f->get()), kQuantity);
    text = fmt::format("{}", f->get());  // shortest form that reads back the same: 0.5 -> "0.5"
  } else {
    v.wrong_type(kQuantity);
  }
  std::optional<double> amount = parse(std::string(resource), text);
  if (!amount) v.fail(fmt::format("'{}' is not a quantity", text), kQuantity);
  if (*amount < 0) v.fail(fmt::format("'{}' is negative", text), "a quantity of zero or more");
  return *amount;
}

std::map<std::string, double> resource_list(const Value& v, AmountParser parse) {
  std::map<std::string, double> out;
  for (const Entry& e : v.table("a table of quantities by resource name").entries()) {
    if (e.key.empty())
      fail(e.key_src, v.path(), "empty resource name",
           "a resource name such as cpu, memory or nvidia.com/gpu");
    out[e.key] = quantity(e.value, e.key, parse);
  }
  return out;
}

}  // namespace caldera::input
