// The openb trace of Alibaba's GPU-sharing cluster, as the FGD paper's simulator reads it
// (Weng et al., "Beware of Fragmentation", USENIX ATC 2023; data and column meanings in
// ../shared/data/openb/SOURCE-README.md; the simulator is
// hkust-adsl/kubernetes-scheduler-simulator).
//
//   nodes: openb_node_list_gpu_node.csv   sn, cpu_milli, memory_mib, gpu, model
//   pods:  openb_pod_list_*.csv           name, cpu_milli, memory_mib, num_gpu, gpu_milli,
//                                         gpu_spec (other columns are read past)
//
// A pod asks cpu_milli, memory_mib and either num_gpu whole GPUs or, when num_gpu is 1 and
// gpu_milli < 1000, a share of one GPU (gpu_milli thousandths of a card). gpu_spec, when
// set, lists the GPU models the pod may use, '|'-separated.
//
// Every bad row (a missing column, a negative or non-numeric value, a model name that is
// not one, num_gpu > 1 with a share, gpu_milli above one card, a duplicate name) is an
// InputError naming the file, the line and the column. With skip_bad_rows the row is left
// out and counted instead. Nothing silently becomes zero: empty numeric fields are errors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace caldera::replay {

// The GPU request of one pod in milli-GPU.
inline constexpr int64_t kMilliPerGpu = 1000;

struct OpenbNode {
  std::string name;        // sn
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t gpus = 0;        // cards on the node
  std::string model;       // "" only when gpus == 0
  int line = 0;            // where it was read (1-based, the header is line 1)
};

struct OpenbPod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t num_gpu = 0;     // cards asked; 1 for a share
  int32_t gpu_milli = 0;   // per card: 1000 for whole cards, < 1000 for a share, 0 no GPU
  std::vector<std::string> models;  // allowed models (gpu_spec), empty: any; no duplicates
  std::string file;        // where it was read, for errors
  int line = 0;

  bool is_share() const { return num_gpu == 1 && gpu_milli > 0 && gpu_milli < kMilliPerGpu; }
  // Total GPU asked in milli-GPU: a share's milli, or num_gpu whole cards.
  int64_t gpu_request_milli() const {
    return is_share() ? gpu_milli : int64_t{num_gpu} * kMilliPerGpu;
  }
  std::string gpu_spec() const;  // the models joined with '|'
};

// What a load skipped (skip_bad_rows) and why, one message per row.
struct LoadReport {
  size_t skipped = 0;
  std::vector<std::string> errors;
};

// Read a node list / pod list. Throws InputError at the first bad row, or with
// skip_bad_rows leaves the row out and records it in `report`. A file that cannot be read,
// or whose header lacks a required column, is always an error.
std::vector<OpenbNode> load_openb_nodes(const std::filesystem::path& file, bool skip_bad_rows,
                                        LoadReport& report);
std::vector<OpenbPod> load_openb_pods(const std::filesystem::path& file, bool skip_bad_rows,
                                      LoadReport& report);

// The pods' device requests against the cluster: a pod that asks more cards than any node
// of an allowed model has, or models no node has, can never be placed. Such pods are
// errors (file, line, column) or, with skip_bad_rows, are removed and recorded.
void check_pods_against_nodes(std::vector<OpenbPod>& pods, const std::vector<OpenbNode>& nodes,
                              bool skip_bad_rows, LoadReport& report);

// A GPU model name as the trace writes them: letters, digits, '.', '_', '-'.
bool valid_model_name(const std::string& s);

}  // namespace caldera::replay
