// Kubernetes' label and node selectors over the C view of a pod's constraints
// (caldera/plugin.h, "Kubernetes scheduling constraints"): what
// k8s.io/apimachinery/pkg/labels and component-helpers' nodeaffinity decide, shared by the
// predicates and nodeorder plugins.
//
// A label source is any callable that takes a NUL-terminated key and returns the value or
// NULL (sdk::Pod::label, sdk::Node::label, a namespace's labels).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <string_view>

#include "caldera/plugin.h"

namespace caldera::kube {

inline std::string_view sv(const char* s) { return s ? std::string_view(s) : std::string_view(); }

inline bool listed(const cal_string_list& l, std::string_view s) {
  for (size_t i = 0; i < l.count; ++i)
    if (sv(l.items[i]) == s) return true;
  return false;
}

// strconv.ParseInt(s, 10, 64): false when s is not a whole base-10 int64.
inline bool parse_int64(const char* s, int64_t* out) {
  if (s == nullptr || *s == '\0') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || *end != '\0' || std::isspace(static_cast<unsigned char>(*s))) return false;
  *out = v;
  return true;
}

// One requirement against the value of its key (NULL: the key is absent).
inline bool requirement_holds(const cal_requirement& r, const char* value) {
  switch (r.op) {
    case CAL_SELECT_IN: return value != nullptr && listed(r.values, value);
    case CAL_SELECT_NOT_IN: return value == nullptr || !listed(r.values, value);
    case CAL_SELECT_EXISTS: return value != nullptr;
    case CAL_SELECT_DOES_NOT_EXIST: return value == nullptr;
    case CAL_SELECT_GT:
    case CAL_SELECT_LT: {
      int64_t have = 0, bound = 0;
      if (value == nullptr || r.values.count != 1 || !parse_int64(value, &have) ||
          !parse_int64(r.values.items[0], &bound))
        return false;
      return r.op == CAL_SELECT_GT ? have > bound : have < bound;
    }
  }
  return false;
}

// A label selector: an absent one matches nothing, an empty one everything.
template <typename Labels>
bool selector_matches(const cal_label_selector& s, Labels&& label) {
  if (s.absent) return false;
  for (size_t i = 0; i < s.count; ++i)
    if (!requirement_holds(s.requirements[i], label(s.requirements[i].key))) return false;
  return true;
}

// labels.Selector.Empty(): present with no requirements (matches every object).
inline bool selector_everything(const cal_label_selector& s) { return !s.absent && s.count == 0; }

// A node selector term over the node's labels and name; a term with no requirement at all
// matches no node.
template <typename Labels>
bool node_term_matches(const cal_node_selector_term& t, Labels&& label, const char* node_name) {
  if (t.expression_count == 0 && t.field_count == 0) return false;
  for (size_t i = 0; i < t.expression_count; ++i)
    if (!requirement_holds(t.expressions[i], label(t.expressions[i].key))) return false;
  for (size_t i = 0; i < t.field_count; ++i)  // the only node field is metadata.name
    if (!requirement_holds(t.fields[i], node_name)) return false;
  return true;
}

// The pod's required node affinity terms (ORed); true for a pod without any.
template <typename Labels>
bool required_node_affinity_matches(const cal_pod_constraints* c, Labels&& label,
                                    const char* node_name) {
  if (c == nullptr || !c->has_required_node_affinity) return true;
  for (size_t i = 0; i < c->required_node_term_count; ++i)
    if (node_term_matches(c->required_node_terms[i], label, node_name)) return true;
  return false;
}

// The sum of the weights of the preferred node affinity terms the node matches
// (NodeAffinity's Score before normalisation).
template <typename Labels>
int64_t preferred_node_affinity_score(const cal_pod_constraints* c, Labels&& label,
                                      const char* node_name) {
  if (c == nullptr) return 0;
  int64_t score = 0;
  for (size_t i = 0; i < c->preferred_node_term_count; ++i) {
    const cal_preferred_node_term& p = c->preferred_node_terms[i];
    if (p.weight == 0) continue;
    if (node_term_matches(p.term, label, node_name)) score += p.weight;
  }
  return score;
}

// The labels of a namespace as the API server sets them: kubernetes.io/metadata.name = its
// name (the session knows no other namespace labels).
struct NamespaceLabels {
  const char* name;
  const char* operator()(const char* key) const {
    return std::strcmp(key, "kubernetes.io/metadata.name") == 0 ? name : nullptr;
  }
};

// Whether a pod affinity term of a pod in `owner_ns` covers pods of namespace `ns`:
// listed in `namespaces`, or matched by the namespace selector, or, when the term names
// neither, the owner's own namespace (Kubernetes' AffinityTerm).
inline bool term_covers_namespace(const cal_pod_affinity_term& t, std::string_view owner_ns,
                                  const char* ns) {
  if (t.namespaces.count == 0 && !t.has_namespace_selector) return sv(ns) == owner_ns;
  if (listed(t.namespaces, sv(ns))) return true;
  return t.has_namespace_selector && selector_matches(t.namespace_selector, NamespaceLabels{ns});
}

}  // namespace caldera::kube
