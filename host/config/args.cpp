// Plugin and action arguments, checked against the option table their owner declares.
//
// Volcano passes every plugin a map[string]string (pkg/scheduler/framework/arguments.go:
// Arguments.GetInt / GetFloat64 / GetBool) and a value that does not parse is logged and
// ignored, as is a misspelt key. Caldera instead checks the config against the plugin's
// typed option table (plugin.h, cal_option) before the policy is used: an unknown name or
// a value of the wrong type is an error naming the file, line, column and option.
#include "host/config/args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "caldera/option_family.hpp"

namespace caldera {

namespace {

bool is_family(const char* name) { return option_family::is_family(name ? name : ""); }

const char* type_word(cal_option_type t) {
  switch (t) {
    case CAL_OPT_BOOL: return "a boolean";
    case CAL_OPT_INT: return "an integer";
    case CAL_OPT_DOUBLE: return "a number";
    case CAL_OPT_STRING: return "a string";
    case CAL_OPT_DURATION: return "a duration";
  }
  return "a value of unknown type";
}

std::string describe(const Args::Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return fmt::format("the boolean {}", x ? "true" : "false");
        else if constexpr (std::is_same_v<T, int64_t>)
          return fmt::format("the integer {}", x);
        else if constexpr (std::is_same_v<T, double>)
          return fmt::format("the float {}", x);
        else
          return fmt::format("the string \"{}\"", x);
      },
      v);
}

std::string prefix_of(const SourceRef& src) {
  std::string w = src.str();
  return w.empty() ? std::string() : w + ": ";
}

// Converts a value as written in TOML to the option's type; nullopt when it does not fit.
// The message in `why` explains a near miss (a quoted number, a negative duration).
std::optional<Args::Value> convert(cal_option_type type, const Args::Value& v, std::string& why) {
  switch (type) {
    case CAL_OPT_BOOL:
      if (auto* b = std::get_if<bool>(&v)) return *b;
      if (auto* s = std::get_if<std::string>(&v); s && (*s == "true" || *s == "false"))
        why = " (write it without quotes)";
      return std::nullopt;
    case CAL_OPT_INT:
      if (auto* i = std::get_if<int64_t>(&v)) return *i;
      if (std::get_if<double>(&v)) why = " (an integer has no fraction or exponent)";
      if (auto* s = std::get_if<std::string>(&v)) {
        char* end = nullptr;
        errno = 0;
        (void)std::strtoll(s->c_str(), &end, 10);
        if (!s->empty() && end && *end == '\0' && errno == 0) why = " (write it without quotes)";
      }
      return std::nullopt;
    case CAL_OPT_DOUBLE:
      if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
      if (auto* d = std::get_if<double>(&v)) return *d;
      if (auto* s = std::get_if<std::string>(&v)) {
        char* end = nullptr;
        (void)std::strtod(s->c_str(), &end);
        if (!s->empty() && end && *end == '\0') why = " (write it without quotes)";
      }
      return std::nullopt;
    case CAL_OPT_STRING:
      if (auto* s = std::get_if<std::string>(&v)) return *s;
      return std::nullopt;
    case CAL_OPT_DURATION: {
      double secs;
      if (auto* s = std::get_if<std::string>(&v)) {
        std::optional<double> d = parse_duration(*s);
        if (!d) {
          why = " (write e.g. \"500ms\", \"3m\", \"1h30m\" or a number of seconds)";
          return std::nullopt;
        }
        secs = *d;
      } else if (auto* i = std::get_if<int64_t>(&v)) {
        secs = static_cast<double>(*i);
      } else if (auto* d = std::get_if<double>(&v)) {
        secs = *d;
      } else {
        return std::nullopt;
      }
      if (!std::isfinite(secs) || secs < 0) {
        why = " (a duration is not negative)";
        return std::nullopt;
      }
      return secs;
    }
  }
  return std::nullopt;
}

// A default as the plugin writes it ("1", "true", "0.5", "3m", plain text).
std::optional<Args::Value> parse_default(cal_option_type type, const std::string& text) {
  switch (type) {
    case CAL_OPT_BOOL:
      if (text == "true") return true;
      if (text == "false") return false;
      return std::nullopt;
    case CAL_OPT_INT: {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno != 0) return std::nullopt;
      return static_cast<int64_t>(v);
    }
    case CAL_OPT_DOUBLE: {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
      return v;
    }
    case CAL_OPT_STRING:
      return text;
    case CAL_OPT_DURATION: {
      std::optional<double> d = parse_duration(text);
      if (!d || *d < 0) return std::nullopt;
      return *d;
    }
  }
  return std::nullopt;
}

}  // namespace

Args Args::validate(const std::string& owner, const std::vector<cal_option>& options,
                    const ArgMap& given) {
  Args out;
  for (const auto& [name, av] : given) {
    const cal_option* opt = nullptr;
    // An exact declaration wins over a family that would also match.
    for (const cal_option& o : options)
      if (o.name && !is_family(o.name) && name == o.name) opt = &o;
    // Else the most specific family ("a.b.*" before "a.*").
    if (!opt)
      for (const cal_option& o : options)
        if (o.name && option_family::member(o.name, name) &&
            (!opt || std::string_view(o.name).size() > std::string_view(opt->name).size()))
          opt = &o;
    if (!opt) {
      std::string declared;
      for (const cal_option& o : options) {
        if (!o.name) continue;
        if (!declared.empty()) declared += ", ";
        declared += o.name;
      }
      throw InputError(fmt::format(
          "{}{}: unknown argument '{}'; {}", prefix_of(av.src), owner, name,
          declared.empty() ? std::string("it declares no arguments")
                           : "declared: " + declared));
    }
    std::string why;
    std::optional<Value> v = convert(opt->type, av.value, why);
    if (!v)
      throw InputError(fmt::format("{}{}: argument '{}' expects {}, got {}{}", prefix_of(av.src),
                                   owner, name, type_word(opt->type), describe(av.value), why));
    out.values_[name] = Entry{opt->type, std::move(*v)};
  }
  // Defaults for what was not given. Families have none (plugin.h).
  for (const cal_option& o : options) {
    if (!o.name || is_family(o.name) || !o.default_value) continue;
    if (out.values_.count(o.name)) continue;
    std::optional<Value> v = parse_default(o.type, o.default_value);
    if (!v)
      throw InputError(fmt::format("{}: option '{}' declares the default '{}', which is not {}",
                                   owner, o.name, o.default_value, type_word(o.type)));
    out.values_[o.name] = Entry{o.type, std::move(*v)};
  }
  return out;
}

const Args::Entry* Args::find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

bool Args::get_bool(const std::string& name, bool fallback) const {
  const Entry* e = find(name);
  if (!e) return fallback;
  if (auto* b = std::get_if<bool>(&e->value)) return *b;
  return fallback;
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  const Entry* e = find(name);
  if (!e) return fallback;
  if (auto* i = std::get_if<int64_t>(&e->value)) return *i;
  return fallback;
}

double Args::get_double(const std::string& name, double fallback) const {
  const Entry* e = find(name);
  if (!e) return fallback;
  if (auto* d = std::get_if<double>(&e->value)) return *d;
  if (auto* i = std::get_if<int64_t>(&e->value)) return static_cast<double>(*i);
  return fallback;
}

std::string Args::get_string(const std::string& name, const std::string& fallback) const {
  const Entry* e = find(name);
  if (!e) return fallback;
  if (auto* s = std::get_if<std::string>(&e->value)) return *s;
  return fallback;
}

}  // namespace caldera
