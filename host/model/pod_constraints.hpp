// A pod's Kubernetes scheduling constraints (PodSpec.affinity, topologySpreadConstraints,
// the containers' host ports and images, the claims of its volumes) and a node's images, read from the API objects as
// Kubernetes writes them (camelCase JSON: a scenario file's TOML is turned into the same
// JSON, host/toml/to_json.hpp) and held as the C view plugins read (caldera/plugin.h, "Kubernetes
// scheduling constraints", ABI 1.3).
//
// Both are immutable once read and shared between the copies of a pod or node record
// (std::shared_ptr<const ...>): a session hands plugins pointers into them, which stay valid
// as long as the session holds its records. Most pods carry no constraint: they hold a null
// pointer and cost nothing.
//
// Reading checks what the API server's validation checks (operators and their values,
// weights 1..100, maxSkew > 0, minDomains only with DoNotSchedule, ports 1..65535, ...) and
// refuses unknown fields, so a bad object is an error naming the field, never a silent
// default.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caldera/plugin.h"
#include "host/model/api_json.hpp"  // ApiFieldError

namespace caldera {

class PodConstraints;

// Collects what a pod's spec carries, part by part; finish() freezes it.
class PodConstraintsReader {
 public:
  PodConstraintsReader();
  ~PodConstraintsReader();
  PodConstraintsReader(const PodConstraintsReader&) = delete;
  PodConstraintsReader& operator=(const PodConstraintsReader&) = delete;

  // PodSpec.affinity: { nodeAffinity, podAffinity, podAntiAffinity }. Errors name fields
  // from `prefix` ("affinity" in a scenario, "spec.affinity" for an API pod).
  void affinity(const nlohmann::json& v, const std::string& prefix);
  // PodSpec.topologySpreadConstraints: an array of constraints.
  void topology_spread(const nlohmann::json& v, const std::string& prefix);
  // A container's ports: an array of ContainerPort; those with a hostPort count.
  void container_ports(const nlohmann::json& v, const std::string& prefix);
  // A container's image, in spec order (init containers after the others).
  void image(std::string name);
  // PodSpec.volumes: an array of Volume. Those of a persistentVolumeClaim name the pod's
  // claims; other sources are accepted and ask nothing of the scheduler; a generic
  // ephemeral volume is refused (its claim is made by a controller Caldera does not run).
  void volumes(const nlohmann::json& v, const std::string& prefix);

  // The constraints read, or null when the pod carries none.
  std::shared_ptr<const PodConstraints> finish();

  struct Parts;  // the parsed fields (pod_constraints.cpp)

 private:
  std::unique_ptr<Parts> parts_;
};

// Read constraints with their C view. Not copyable: the view points into the object.
class PodConstraints {
 public:
  explicit PodConstraints(std::unique_ptr<PodConstraintsReader::Parts> parts);
  ~PodConstraints();
  PodConstraints(const PodConstraints&) = delete;
  PodConstraints& operator=(const PodConstraints&) = delete;

  const cal_pod_constraints* view() const { return &view_; }

 private:
  std::unique_ptr<PodConstraintsReader::Parts> parts_;
  struct Arrays;  // the C arrays the view points into
  std::unique_ptr<Arrays> arrays_;
  cal_pod_constraints view_{};
};

// NodeStatus.images: the images a node holds, with their C view.
class NodeImages {
 public:
  struct Image {
    std::vector<std::string> names;
    int64_t size_bytes = 0;
  };
  explicit NodeImages(std::vector<Image> images);
  NodeImages(const NodeImages&) = delete;
  NodeImages& operator=(const NodeImages&) = delete;

  size_t size() const { return images_.size(); }
  const Image& at(size_t i) const { return images_[i]; }
  // Image i as plugins read it (names valid while this object lives).
  cal_string_list names_view(size_t i) const {
    return {name_ptrs_[i].data(), name_ptrs_[i].size()};
  }

 private:
  std::vector<Image> images_;
  std::vector<std::vector<const char*>> name_ptrs_;
};

// NodeStatus.images as the API writes it: [{ names = [...], sizeBytes = N }, ...]; null
// when the list is empty.
std::shared_ptr<const NodeImages> read_node_images(const nlohmann::json& v,
                                                   const std::string& prefix);

}  // namespace caldera
