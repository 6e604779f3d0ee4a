#include "host/toml/quantity.hpp"

#include <cmath>

#include <fmt/format.h>

namespace caldera::input {

namespace {

constexpr const char* kQuantity =
    "a quantity such as \"2\", \"500m\", \"4Gi\", \"1G\" or \"1e3\" (a string or a number)";

// quantity() with the resource's name already a string: a resource list's key is made
// once, for the parser and the list.
double amount_of(const Value& v, const std::string& resource, AmountParser parse) {
  const toml::node& n = v.node();
  // A string is parsed where it sits; a number is written out first.
  std::string number;
  const std::string* text = &number;
  if (const auto* s = n.as_string()) {
    text = &s->get();
  } else if (const auto* i = n.as_integer()) {
    number = std::to_string(i->get());
  } else if (const auto* f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) v.fail(fmt::format("{} is not finite", f->get()), kQuantity);
    number = fmt::format("{}", f->get());  // shortest form that reads back the same: 0.5 -> "0.5"
  } else {
    v.wrong_type(kQuantity);
  }
  std::optional<double> amount = parse(resource, *text);
  if (!amount) v.fail(fmt::format("'{}' is not a quantity", *text), kQuantity);
  if (*amount < 0) v.fail(fmt::format("'{}' is negative", *text), "a quantity of zero or more");
  return *amount;
}

}  // namespace

double quantity(const Value& v, std::string_view resource, AmountParser parse) {
  return amount_of(v, std::string(resource), parse);
}

std::map<std::string, double> resource_list(const Value& v, AmountParser parse) {
  std::map<std::string, double> out;
  const Table t = v.table("a table of quantities by resource name");
  // The keys come sorted as the map sorts them: each goes in at the end.
  t.each([&](std::string_view key, const Value& value) {
    if (key.empty())
      fail(t.key_src(key), v.path(), "empty resource name",
           "a resource name such as cpu, memory or nvidia.com/gpu");
    std::string resource(key);
    const double amount = amount_of(value, resource, parse);
    out.emplace_hint(out.end(), std::move(resource), amount);
  });
  return out;
}

}  // namespace caldera::input
