#include "host/toml/to_json.hpp"

#include <sstream>

namespace caldera::input {

namespace {

nlohmann::json convert(const Value& v, const std::string& path,
                       const std::function<void(const std::string&, const Value&)>& record) {
  record(path, v);
  const toml::node& n = v.node();
  if (n.is_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const Entry& e : v.table().entries())
      out[e.key] = convert(e.value, path.empty() ? e.key : path + "." + e.key, record);
    return out;
  }
  if (n.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    const std::vector<Value> items = v.array().values();
    for (size_t i = 0; i < items.size(); ++i)
      out.push_back(convert(items[i], path + "[" + std::to_string(i) + "]", record));
    return out;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  std::ostringstream text;
  if (const auto* d = n.as_date()) text << *d;
  else if (const auto* t = n.as_time()) text << *t;
  else if (const auto* dt = n.as_date_time()) text << *dt;
  return text.str();
}

}  // namespace

nlohmann::json to_json(const Value& v, Positions* positions) {
  return convert(v, "", [&](const std::string& path, const Value& at) {
    if (positions != nullptr) positions->record(path, at);
  });
}

void Positions::fail(const std::string& path, std::string_view problem,
                     std::string_view expected) const {
  // The longest prefix of `path` (cut at '.' or '[') that names a written value.
  std::string prefix = path;
  while (true) {
    if (auto it = at_.find(prefix); it != at_.end()) {
      const std::string rest = path.substr(prefix.size());
      if (rest.empty()) it->second.fail(problem, expected);
      const std::string object =
          it->second.path() + (rest[0] == '.' || rest[0] == '[' ? "" : ".") + rest;
      input::fail(it->second.src(), object, problem, expected);
    }
    if (prefix.empty()) break;
    const size_t cut = prefix.find_last_of(".[");
    prefix = cut == std::string::npos ? std::string() : prefix.substr(0, cut);
  }
  root_.fail(problem, expected);
}

}  // namespace caldera::input
