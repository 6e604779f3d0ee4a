// Reading Kubernetes API objects from JSON (camelCase fields, as the API server and a
// manifest write them) with the path of every field, so that a bad value is an
// ApiFieldError naming it ("spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions
// [1].operator: unknown value 'in' (did you mean 'In'?)"). Shared by the readers of pod
// constraints (pod_constraints.hpp) and storage objects (storage.hpp); also the parsed
// selector types they share and the builder of their C views (caldera/plugin.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caldera/plugin.h"

namespace caldera {

// A problem with a field of an API object: `path` names the field from the object handed
// to the reader ("podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]
// .topologyKey", array elements as [i] from 0), `problem` says what is wrong with what is
// written, `expected` what would be right. The caller adds where the object came from.
struct ApiFieldError : std::runtime_error {
  ApiFieldError(std::string path_, std::string problem_, std::string expected_);
  std::string path;
  std::string problem;
  std::string expected;
};

namespace api {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& path, std::string problem, std::string expected);

// "parent.key" ("key" at the top), "parent[i]".
std::string field(const std::string& parent, std::string_view key);
std::string element(const std::string& parent, size_t i);
// "an object", "a string", ... for messages.
const char* kind_of(const json& v);
// " (did you mean 'x'?)" when one of `words` is close to `written`; "" otherwise.
std::string did_you_mean(std::string_view written, const std::string_view* words, size_t n);
std::string listed_words(const std::string_view* words, size_t n);

// v as an object whose every field is one of `allowed` (an unknown one is an error).
const json& object(const json& v, const std::string& path,
                   std::initializer_list<std::string_view> allowed);
// obj's field `key`; null when absent or JSON null.
const json* member(const json& obj, std::string_view key);
const json& array(const json& v, const std::string& path);
std::string string(const json& v, const std::string& path);
std::vector<std::string> strings(const json& v, const std::string& path);
int64_t integer(const json& v, const std::string& path, int64_t min, int64_t max);
bool boolean(const json& v, const std::string& path);
std::string required_string(const json& obj, const std::string& path, std::string_view key,
                            std::string_view expected);
// An object of strings (labels, annotations, parameters), in key order.
std::vector<std::pair<std::string, std::string>> string_map(const json& v, const std::string& path);
// One of `choices` (an API enum): its index; "unknown value 'x' (did you mean 'y'?);
// expected one of a, b" otherwise.
size_t choice(const json& v, const std::string& path, const std::string_view* choices, size_t n);
inline size_t choice(const json& v, const std::string& path,
                     std::initializer_list<std::string_view> choices) {
  return choice(v, path, choices.begin(), choices.size());
}
template <size_t N>
size_t choice(const json& v, const std::string& path, const std::array<std::string_view, N>& c) {
  return choice(v, path, c.data(), N);
}
// A quantity ("10Gi", 1073741824) as a plain number.
double quantity(const json& v, const std::string& path);

// ---- selectors ---------------------------------------------------------------------------

struct Requirement {
  std::string key;
  cal_selector_op op = CAL_SELECT_IN;
  std::vector<std::string> values;
};

struct Selector {
  bool absent = true;
  std::vector<Requirement> requirements;
};

struct NodeTerm {
  std::vector<Requirement> expressions;
  std::vector<Requirement> fields;
};

// A selector requirement. `node`: a node selector requirement (Gt and Lt allowed);
// `fields`: a node field requirement (metadata.name with In / NotIn and one value).
Requirement requirement(const json& v, const std::string& path, bool node, bool fields);
// metav1.LabelSelector (null: absent); matchLabels first, in key order, as In requirements.
Selector label_selector(const json* v, const std::string& path);
// Whether labels satisfy the selector (k8s.io/apimachinery labels.Selector.Matches): an
// absent selector matches nothing, one without requirements everything.
bool selector_matches(const Selector& s,
                      const std::map<std::string, std::string, std::less<>>& labels);
// A NodeSelectorTerm.
NodeTerm node_term(const json& v, const std::string& path);
// NodeSelector.nodeSelectorTerms: at least one term.
std::vector<NodeTerm> node_selector_terms(const json& v, const std::string& path);

// ---- C views -----------------------------------------------------------------------------

// Owns every array a C view points into. Each inner vector is filled once, before the
// next one is added: growing the outer vectors keeps inner buffers where they are.
struct ViewArena {
  std::vector<std::vector<const char*>> strings;
  std::vector<std::vector<cal_requirement>> requirements;
  std::vector<std::vector<cal_node_selector_term>> terms_;
  std::vector<std::vector<double>> numbers;

  cal_string_list list(const std::vector<std::string>& v);
  std::pair<const cal_requirement*, size_t> reqs(const std::vector<Requirement>& v);
  cal_label_selector selector(const Selector& s);
  cal_node_selector_term term(const NodeTerm& t);
  std::pair<const cal_node_selector_term*, size_t> terms(const std::vector<NodeTerm>& v);
};

}  // namespace api
}  // namespace caldera
