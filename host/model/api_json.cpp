#include "host/model/api_json.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "host/model/quantity.hpp"
#include "host/util/spelling.hpp"

namespace caldera {

ApiFieldError::ApiFieldError(std::string path_, std::string problem_, std::string expected_)
    : std::runtime_error(fmt::format("{}: {}{}{}", path_, problem_,
                                     expected_.empty() ? "" : "; expected ", expected_)),
      path(std::move(path_)),
      problem(std::move(problem_)),
      expected(std::move(expected_)) {}

namespace api {

void bad(const std::string& path, std::string problem, std::string expected) {
  throw ApiFieldError(path, std::move(problem), std::move(expected));
}

std::string field(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}
std::string element(const std::string& parent, size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

const char* kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a float";
    default: return "a value";
  }
}

std::string did_you_mean(std::string_view written, const std::string_view* words, size_t n) {
  const std::string guess = closest_word(written, std::vector<std::string>(words, words + n));
  return guess.empty() ? std::string() : " (did you mean '" + guess + "'?)";
}

std::string listed_words(const std::string_view* words, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (out.empty() ? "" : ", ") + std::string(words[i]);
  return out;
}

const json& object(const json& v, const std::string& path,
                   std::initializer_list<std::string_view> allowed) {
  if (!v.is_object()) bad(path, fmt::format("got {}", kind_of(v)), "an object");
  for (const auto& [k, _] : v.items()) {
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    bad(field(path, k),
        fmt::format("unknown field '{}'{}", k, did_you_mean(k, allowed.begin(), allowed.size())),
        "one of the fields " + listed_words(allowed.begin(), allowed.size()));
  }
  return v;
}

const json* member(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& array(const json& v, const std::string& path) {
  if (!v.is_array()) bad(path, fmt::format("got {}", kind_of(v)), "an array");
  return v;
}

std::string string(const json& v, const std::string& path) {
  if (!v.is_string()) bad(path, fmt::format("got {}", kind_of(v)), "a string");
  return v.get<std::string>();
}

std::vector<std::string> strings(const json& v, const std::string& path) {
  std::vector<std::string> out;
  const json& a = array(v, path);
  for (size_t i = 0; i < a.size(); ++i) out.push_back(string(a[i], element(path, i)));
  return out;
}

int64_t integer(const json& v, const std::string& path, int64_t min, int64_t max) {
  if (!v.is_number_integer())
    bad(path, fmt::format("got {}", kind_of(v)), fmt::format("an integer from {} to {}", min, max));
  const int64_t n = v.get<int64_t>();
  if (n < min || n > max)
    bad(path, fmt::format("{} is out of range", n), fmt::format("an integer from {} to {}", min, max));
  return n;
}

bool boolean(const json& v, const std::string& path) {
  if (!v.is_boolean()) bad(path, fmt::format("got {}", kind_of(v)), "true or false");
  return v.get<bool>();
}

std::string required_string(const json& obj, const std::string& path, std::string_view key,
                            std::string_view expected) {
  const json* v = member(obj, key);
  if (v == nullptr) bad(path, fmt::format("missing field '{}'", key), std::string(expected));
  std::string s = string(*v, field(path, key));
  if (s.empty()) bad(field(path, key), "empty string", std::string(expected));
  return s;
}

std::vector<std::pair<std::string, std::string>> string_map(const json& v, const std::string& path) {
  if (!v.is_object()) bad(path, fmt::format("got {}", kind_of(v)), "an object of strings");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, val] : v.items()) out.emplace_back(k, string(val, field(path, k)));
  std::sort(out.begin(), out.end());
  return out;
}

size_t choice(const json& v, const std::string& path, const std::string_view* choices, size_t n) {
  const std::string s = string(v, path);
  for (size_t i = 0; i < n; ++i)
    if (s == choices[i]) return i;
  bad(path, fmt::format("unknown value '{}'{}", s, did_you_mean(s, choices, n)),
      "one of " + listed_words(choices, n));
}

double quantity(const json& v, const std::string& path) {
  std::optional<double> q;
  if (v.is_string()) q = parse_quantity(v.get<std::string>());
  else if (v.is_number()) q = v.get<double>();
  if (!q) bad(path, v.is_string() ? fmt::format("'{}' is not a quantity", v.get<std::string>())
                                  : fmt::format("got {}", kind_of(v)),
              "a quantity such as \"10Gi\"");
  if (*q < 0) bad(path, "a negative quantity", "a quantity of at least 0");
  return *q;
}

namespace {

bool is_integer_text(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

}  // namespace

Requirement requirement(const json& v, const std::string& path, bool node, bool fields) {
  object(v, path, {"key", "operator", "values"});
  Requirement r;
  r.key = required_string(v, path, "key", fields ? "metadata.name" : "a label key");
  if (fields && r.key != "metadata.name")
    bad(field(path, "key"), fmt::format("unknown node field '{}'", r.key), "metadata.name");
  const json* op = member(v, "operator");
  if (op == nullptr) bad(path, "missing field 'operator'", "an operator");
  static constexpr std::array<std::string_view, 6> kOps{"In", "NotIn", "Exists", "DoesNotExist",
                                                       "Gt", "Lt"};
  const std::string op_path = field(path, "operator");
  r.op = static_cast<cal_selector_op>(choice(*op, op_path, kOps.data(),
                                             fields ? 2 : node ? 6 : 4));
  if (const json* vals = member(v, "values")) r.values = strings(*vals, field(path, "values"));
  const std::string values_path = field(path, "values");
  const std::string op_name = op->get<std::string>();
  switch (r.op) {
    case CAL_SELECT_IN:
    case CAL_SELECT_NOT_IN:
      if (r.values.empty())
        bad(values_path, fmt::format("no values with operator {}", op_name), "at least one value");
      if (fields && r.values.size() != 1)
        bad(values_path, fmt::format("{} values", r.values.size()),
            "exactly one value for a node field requirement");
      break;
    case CAL_SELECT_EXISTS:
    case CAL_SELECT_DOES_NOT_EXIST:
      if (!r.values.empty())
        bad(values_path, fmt::format("values with operator {}", op_name), "no values");
      break;
    case CAL_SELECT_GT:
    case CAL_SELECT_LT:
      if (r.values.size() != 1 || !is_integer_text(r.values[0]))
        bad(values_path, fmt::format("{} value(s) with operator {}", r.values.size(), op_name),
            "exactly one value, an integer");
      break;
  }
  return r;
}

Selector label_selector(const json* v, const std::string& path) {
  Selector s;
  if (v == nullptr) return s;
  object(*v, path, {"matchLabels", "matchExpressions"});
  s.absent = false;
  if (const json* ml = member(*v, "matchLabels"))
    for (auto& [k, val] : string_map(*ml, field(path, "matchLabels")))
      s.requirements.push_back({k, CAL_SELECT_IN, {val}});
  if (const json* me = member(*v, "matchExpressions")) {
    const std::string ep = field(path, "matchExpressions");
    const json& a = array(*me, ep);
    for (size_t i = 0; i < a.size(); ++i)
      s.requirements.push_back(requirement(a[i], element(ep, i), false, false));
  }
  return s;
}

bool selector_matches(const Selector& s,
                      const std::map<std::string, std::string, std::less<>>& labels) {
  if (s.absent) return false;
  for (const Requirement& r : s.requirements) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const auto listed = [&] {
      return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    };
    switch (r.op) {
      case CAL_SELECT_IN: if (!listed()) return false; break;
      case CAL_SELECT_NOT_IN: if (listed()) return false; break;
      case CAL_SELECT_EXISTS: if (!has) return false; break;
      case CAL_SELECT_DOES_NOT_EXIST: if (has) return false; break;
      default: return false;  // Gt / Lt: node selectors only, never in a label selector
    }
  }
  return true;
}

NodeTerm node_term(const json& v, const std::string& path) {
  object(v, path, {"matchExpressions", "matchFields"});
  NodeTerm t;
  if (const json* me = member(v, "matchExpressions")) {
    const std::string ep = field(path, "matchExpressions");
    const json& a = array(*me, ep);
    for (size_t i = 0; i < a.size(); ++i)
      t.expressions.push_back(requirement(a[i], element(ep, i), true, false));
  }
  if (const json* mf = member(v, "matchFields")) {
    const std::string fp = field(path, "matchFields");
    const json& a = array(*mf, fp);
    for (size_t i = 0; i < a.size(); ++i)
      t.fields.push_back(requirement(a[i], element(fp, i), true, true));
  }
  return t;
}

std::vector<NodeTerm> node_selector_terms(const json& v, const std::string& path) {
  object(v, path, {"nodeSelectorTerms"});
  const json* terms = member(v, "nodeSelectorTerms");
  const std::string tp = field(path, "nodeSelectorTerms");
  if (terms == nullptr || !terms->is_array() || terms->empty())
    bad(tp, terms == nullptr ? "missing" : "no terms", "at least one node selector term");
  std::vector<NodeTerm> out;
  for (size_t i = 0; i < terms->size(); ++i) out.push_back(node_term((*terms)[i], element(tp, i)));
  return out;
}

// ---- C views -------------------------------------------------------------------------------

cal_string_list ViewArena::list(const std::vector<std::string>& v) {
  if (v.empty()) return {nullptr, 0};
  std::vector<const char*>& a = strings.emplace_back();
  for (const std::string& s : v) a.push_back(s.c_str());
  return {a.data(), a.size()};
}

std::pair<const cal_requirement*, size_t> ViewArena::reqs(const std::vector<Requirement>& v) {
  if (v.empty()) return {nullptr, 0};
  std::vector<cal_requirement> out;
  out.reserve(v.size());
  for (const Requirement& r : v) out.push_back({r.key.c_str(), r.op, list(r.values)});
  std::vector<cal_requirement>& a = requirements.emplace_back(std::move(out));
  return {a.data(), a.size()};
}

cal_label_selector ViewArena::selector(const Selector& s) {
  auto [p, n] = reqs(s.requirements);
  return {s.absent ? 1 : 0, p, n};
}

cal_node_selector_term ViewArena::term(const NodeTerm& t) {
  auto [e, en] = reqs(t.expressions);
  auto [f, fn] = reqs(t.fields);
  return {e, en, f, fn};
}

std::pair<const cal_node_selector_term*, size_t> ViewArena::terms(const std::vector<NodeTerm>& v) {
  if (v.empty()) return {nullptr, 0};
  std::vector<cal_node_selector_term> out;
  for (const NodeTerm& t : v) out.push_back(term(t));
  std::vector<cal_node_selector_term>& a = terms_.emplace_back(std::move(out));
  return {a.data(), a.size()};
}

}  // namespace api
}  // namespace caldera
