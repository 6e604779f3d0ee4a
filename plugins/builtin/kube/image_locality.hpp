// Kubernetes' ImageLocality score (pkg/scheduler/framework/plugins/imagelocality): nodes
// that already hold the pod's images score higher, by image size scaled by how many of the
// session's nodes hold the image (so that a pod is not packed where one rare image is).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "caldera/sdk.hpp"
#include "kube/selectors.hpp"

namespace caldera::kube {

// What the scheduler cache keeps per image name: its size and the nodes that hold it.
class ImageIndex {
 public:
  explicit ImageIndex(sdk::Session s) : nodes_(s.node_count()) {
    for (size_t i = 0; i < s.node_count(); ++i) {
      const sdk::Node n = s.node(i);
      for (size_t k = 0; k < n.image_count(); ++k) {
        const cal_image im = n.image(k);
        for (size_t j = 0; j < im.names.count; ++j) {
          Summary& sum = by_name_[sv(im.names.items[j])];
          sum.size = im.size_bytes;
          ++sum.nodes;
        }
      }
    }
  }

  // The 0..100 score of node n for the pod's images (images listed: each container's).
  int64_t score(const cal_pod_constraints* c, sdk::Node n) const {
    if (c == nullptr || c->images.count == 0 || by_name_.empty()) return 0;
    int64_t sum = 0;
    for (size_t i = 0; i < c->images.count; ++i) {
      const std::string_view want = sv(c->images.items[i]);
      auto it = by_name_.find(want);
      if (it == by_name_.end() || !holds(n, want)) continue;
      const double spread = static_cast<double>(it->second.nodes) / static_cast<double>(nodes_);
      sum += static_cast<int64_t>(static_cast<double>(it->second.size) * spread);
    }
    constexpr int64_t mb = 1024 * 1024, min_threshold = 23 * mb, max_container = 1000 * mb;
    const int64_t max_threshold = max_container * static_cast<int64_t>(c->images.count);
    if (sum < min_threshold) sum = min_threshold;
    else if (sum > max_threshold) sum = max_threshold;
    return 100 * (sum - min_threshold) / (max_threshold - min_threshold);
  }

 private:
  struct Summary {
    int64_t size = 0;
    int64_t nodes = 0;
  };
  static bool holds(sdk::Node n, std::string_view name) {
    for (size_t k = 0; k < n.image_count(); ++k) {
      const cal_image im = n.image(k);
      for (size_t j = 0; j < im.names.count; ++j)
        if (sv(im.names.items[j]) == name) return true;
    }
    return false;
  }
  size_t nodes_;
  std::unordered_map<std::string_view, Summary> by_name_;
};

}  // namespace caldera::kube
