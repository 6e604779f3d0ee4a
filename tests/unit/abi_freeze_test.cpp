// The released layouts of caldera/plugin.h, frozen.
//
// THESE NUMBERS ARE KEPT FOREVER. Today's layouts are ABI 1.0 and 1.1 as plugins were built
// against them: a plugin built for 1.0 or 1.1 must load on every later 1.x host, so no
// size or offset recorded here may ever change. A new member only ever goes at the end of
// its struct (cal_plugin: a new slot takes reserved[0], the array shrinks by one and the
// struct keeps its size: the one line that moves is reserved's own), in a group headed "added in 1.N" with CAL_ABI_MINOR raised to N
// and a CAL_*_V1_N_SIZE macro; then its line is appended below and nothing else here
// changes. If a test here fails, the change broke plugins that exist: undo it.
//
// What is checked: every struct of plugin.h (found by reading the header, so a new struct
// or member cannot slip past), every member's offset and size in order, each struct's
// size and alignment, the bytes each minor defines (CAL_*_V1_0_SIZE, CAL_*_V1_1_SIZE), the
// values of the enums and constants, that the host's table sets every function, and that a
// C99 compiler (abi_freeze_c.c) lays every member out at the same place.
//
// The numbers are those of LP64 targets (x86-64, aarch64), the only ones Caldera builds for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "abi_freeze_c.h"
#include "caldera/plugin.h"
#include "host/session/host_api.hpp"

static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8 && sizeof(double) == 8,
              "the frozen layouts are those of LP64 targets");

namespace {

struct Member {
  const char* strct;
  const char* name;
  size_t offset;
  size_t size;
};

// Every member of every struct of plugin.h, in declaration order: offset and size. KEPT
// FOREVER; append only.
const Member kMembers[] = {
    // cal_status: 2 members
    {"cal_status", "struct_size", 0, 4},
    {"cal_status", "reason", 4, 256},
    // cal_taint: 5 members
    {"cal_taint", "struct_size", 0, 4},
    {"cal_taint", "key", 8, 8},
    {"cal_taint", "value", 16, 8},
    {"cal_taint", "effect", 24, 8},
    {"cal_taint", "op", 32, 8},
    // cal_option: 5 members
    {"cal_option", "struct_size", 0, 4},
    {"cal_option", "name", 8, 8},
    {"cal_option", "type", 16, 4},
    {"cal_option", "default_value", 24, 8},
    {"cal_option", "description", 32, 8},
    // cal_host_api: 135 members
    {"cal_host_api", "struct_size", 0, 4},
    {"cal_host_api", "abi_version", 4, 4},
    {"cal_host_api", "log", 8, 8},
    {"cal_host_api", "status_set", 16, 8},
    {"cal_host_api", "arg_is_set", 24, 8},
    {"cal_host_api", "arg_bool", 32, 8},
    {"cal_host_api", "arg_int", 40, 8},
    {"cal_host_api", "arg_double", 48, 8},
    {"cal_host_api", "arg_string", 56, 8},
    {"cal_host_api", "arg_count", 64, 8},
    {"cal_host_api", "arg_name", 72, 8},
    {"cal_host_api", "resource_count", 80, 8},
    {"cal_host_api", "resource_name", 88, 8},
    {"cal_host_api", "resource_id", 96, 8},
    {"cal_host_api", "cluster_total", 104, 8},
    {"cal_host_api", "now", 112, 8},
    {"cal_host_api", "job_count", 120, 8},
    {"cal_host_api", "job_at", 128, 8},
    {"cal_host_api", "node_count", 136, 8},
    {"cal_host_api", "node_at", 144, 8},
    {"cal_host_api", "queue_count", 152, 8},
    {"cal_host_api", "queue_at", 160, 8},
    {"cal_host_api", "queue_by_name", 168, 8},
    {"cal_host_api", "node_by_name", 176, 8},
    {"cal_host_api", "job_name", 184, 8},
    {"cal_host_api", "job_namespace", 192, 8},
    {"cal_host_api", "job_queue", 200, 8},
    {"cal_host_api", "job_min_available", 208, 8},
    {"cal_host_api", "job_priority", 216, 8},
    {"cal_host_api", "job_created", 224, 8},
    {"cal_host_api", "job_phase", 232, 8},
    {"cal_host_api", "job_phase_since", 240, 8},
    {"cal_host_api", "job_task_count", 248, 8},
    {"cal_host_api", "job_task_at", 256, 8},
    {"cal_host_api", "job_status_count", 264, 8},
    {"cal_host_api", "job_ready_num", 272, 8},
    {"cal_host_api", "job_waiting_num", 280, 8},
    {"cal_host_api", "job_valid_num", 288, 8},
    {"cal_host_api", "job_role_count", 296, 8},
    {"cal_host_api", "job_role_name", 304, 8},
    {"cal_host_api", "job_role_min", 312, 8},
    {"cal_host_api", "job_role_ready", 320, 8},
    {"cal_host_api", "job_role_waiting", 328, 8},
    {"cal_host_api", "job_role_valid", 336, 8},
    {"cal_host_api", "job_allocated", 344, 8},
    {"cal_host_api", "job_total_request", 352, 8},
    {"cal_host_api", "job_min_resources", 360, 8},
    {"cal_host_api", "job_set_pending_reason", 368, 8},
    {"cal_host_api", "task_name", 376, 8},
    {"cal_host_api", "task_job", 384, 8},
    {"cal_host_api", "task_node", 392, 8},
    {"cal_host_api", "task_status", 400, 8},
    {"cal_host_api", "task_request", 408, 8},
    {"cal_host_api", "task_init_request", 416, 8},
    {"cal_host_api", "task_priority", 424, 8},
    {"cal_host_api", "task_preemptable", 432, 8},
    {"cal_host_api", "task_best_effort", 440, 8},
    {"cal_host_api", "task_preempt_never", 448, 8},
    {"cal_host_api", "task_role", 456, 8},
    {"cal_host_api", "task_created", 464, 8},
    {"cal_host_api", "task_label", 472, 8},
    {"cal_host_api", "task_annotation", 480, 8},
    {"cal_host_api", "task_selector_count", 488, 8},
    {"cal_host_api", "task_selector_key", 496, 8},
    {"cal_host_api", "task_selector_value", 504, 8},
    {"cal_host_api", "task_toleration_count", 512, 8},
    {"cal_host_api", "task_toleration_at", 520, 8},
    {"cal_host_api", "node_name", 528, 8},
    {"cal_host_api", "node_allocatable", 536, 8},
    {"cal_host_api", "node_idle", 544, 8},
    {"cal_host_api", "node_used", 552, 8},
    {"cal_host_api", "node_releasing", 560, 8},
    {"cal_host_api", "node_pipelined", 568, 8},
    {"cal_host_api", "node_future_idle", 576, 8},
    {"cal_host_api", "node_pods_used", 584, 8},
    {"cal_host_api", "node_pods_max", 592, 8},
    {"cal_host_api", "node_unschedulable", 600, 8},
    {"cal_host_api", "node_label", 608, 8},
    {"cal_host_api", "node_label_count", 616, 8},
    {"cal_host_api", "node_label_key", 624, 8},
    {"cal_host_api", "node_label_value", 632, 8},
    {"cal_host_api", "node_taint_count", 640, 8},
    {"cal_host_api", "node_taint_at", 648, 8},
    {"cal_host_api", "node_task_count", 656, 8},
    {"cal_host_api", "node_task_at", 664, 8},
    {"cal_host_api", "queue_name", 672, 8},
    {"cal_host_api", "queue_weight", 680, 8},
    {"cal_host_api", "queue_capability", 688, 8},
    {"cal_host_api", "queue_deserved", 696, 8},
    {"cal_host_api", "queue_guarantee", 704, 8},
    {"cal_host_api", "queue_reclaimable", 712, 8},
    {"cal_host_api", "queue_priority", 720, 8},
    {"cal_host_api", "queue_state", 728, 8},
    {"cal_host_api", "queue_parent", 736, 8},
    {"cal_host_api", "queue_created", 744, 8},
    {"cal_host_api", "task_priority_class", 752, 8},
    {"cal_host_api", "arg_hierarchy", 760, 8},
    {"cal_host_api", "task_set_annotation", 768, 8},
    {"cal_host_api", "job_annotation", 776, 8},
    {"cal_host_api", "node_annotation", 784, 8},
    {"cal_host_api", "node_numa_count", 792, 8},
    {"cal_host_api", "node_numa_cpu", 800, 8},
    {"cal_host_api", "node_numa_memory", 808, 8},
    {"cal_host_api", "node_topology_policy", 816, 8},
    {"cal_host_api", "node_index", 824, 8},
    {"cal_host_api", "node_pod_requests", 832, 8},
    {"cal_host_api", "node_pod_requests_nonzero", 840, 8},
    {"cal_host_api", "hypernode_count", 848, 8},
    {"cal_host_api", "hypernode_at", 856, 8},
    {"cal_host_api", "hypernode_name", 864, 8},
    {"cal_host_api", "hypernode_tier", 872, 8},
    {"cal_host_api", "hypernode_parent", 880, 8},
    {"cal_host_api", "hypernode_node_count", 888, 8},
    {"cal_host_api", "hypernode_node_at", 896, 8},
    {"cal_host_api", "node_hypernode_count", 904, 8},
    {"cal_host_api", "node_hypernode_at", 912, 8},
    {"cal_host_api", "hypernode_lca", 920, 8},
    {"cal_host_api", "job_network_topology", 928, 8},
    {"cal_host_api", "job_allocated_hypernode", 936, 8},
    {"cal_host_api", "node_table", 944, 8},
    // added in 1.2
    {"cal_host_api", "state_get", 952, 8},
    {"cal_host_api", "state_put", 960, 8},
    // added in 1.3
    {"cal_host_api", "task_pod", 968, 8},
    {"cal_host_api", "pod_task", 976, 8},
    {"cal_host_api", "node_pod_count", 984, 8},
    {"cal_host_api", "node_pod_at", 992, 8},
    {"cal_host_api", "pod_name", 1000, 8},
    {"cal_host_api", "pod_namespace", 1008, 8},
    {"cal_host_api", "pod_label", 1016, 8},
    {"cal_host_api", "pod_label_count", 1024, 8},
    {"cal_host_api", "pod_label_key", 1032, 8},
    {"cal_host_api", "pod_label_value", 1040, 8},
    {"cal_host_api", "pod_constraints", 1048, 8},
    {"cal_host_api", "pod_terminating", 1056, 8},
    {"cal_host_api", "node_image_count", 1064, 8},
    {"cal_host_api", "node_image_at", 1072, 8},
    // added in 1.4
    {"cal_host_api", "storage_class_get", 1080, 8},
    {"cal_host_api", "volume_get", 1088, 8},
    {"cal_host_api", "claim_get", 1096, 8},
    {"cal_host_api", "volume_count", 1104, 8},
    {"cal_host_api", "volume_at", 1112, 8},
    {"cal_host_api", "volume_assumed_claim", 1120, 8},
    {"cal_host_api", "claim_selected_node", 1128, 8},
    {"cal_host_api", "task_assume_volume", 1136, 8},
    // added in 1.5
    {"cal_host_api", "queue_annotation", 1144, 8},
    {"cal_host_api", "queue_affinity", 1152, 8},
    {"cal_host_api", "task_scheduled_time", 1160, 8},
    {"cal_host_api", "disruption_budget_count", 1168, 8},
    {"cal_host_api", "disruption_budget_at", 1176, 8},
    {"cal_host_api", "resource_quota_count", 1184, 8},
    {"cal_host_api", "resource_quota_at", 1192, 8},
    {"cal_host_api", "job_fit_error", 1200, 8},
    {"cal_host_api", "job_schedulable_num", 1208, 8},
    {"cal_host_api", "job_set_unschedulable_condition", 1216, 8},
    {"cal_host_api", "job_min_resource", 1224, 8},
    // added in 1.6
    {"cal_host_api", "queue_set_fair_share", 1232, 8},
    // added in 1.8: sub-jobs
    {"cal_host_api", "job_sub_job_count", 1240, 8},
    {"cal_host_api", "job_sub_job_at", 1248, 8},
    {"cal_host_api", "task_sub_job", 1256, 8},
    {"cal_host_api", "sub_job_job", 1264, 8},
    {"cal_host_api", "sub_job_uid", 1272, 8},
    {"cal_host_api", "sub_job_group", 1280, 8},
    {"cal_host_api", "sub_job_min_available", 1288, 8},
    {"cal_host_api", "sub_job_priority", 1296, 8},
    {"cal_host_api", "sub_job_match_index", 1304, 8},
    {"cal_host_api", "sub_job_task_count", 1312, 8},
    {"cal_host_api", "sub_job_task_at", 1320, 8},
    {"cal_host_api", "sub_job_status_count", 1328, 8},
    {"cal_host_api", "sub_job_network_topology", 1336, 8},
    {"cal_host_api", "sub_job_allocated_hypernode", 1344, 8},
    {"cal_host_api", "job_sub_group_count", 1352, 8},
    {"cal_host_api", "job_sub_group_at", 1360, 8},
    {"cal_host_api", "task_allocated_hypernode", 1368, 8},
    // cal_plugin: 39 members
    {"cal_plugin", "struct_size", 0, 4},
    {"cal_plugin", "abi_version", 4, 4},
    {"cal_plugin", "name", 8, 8},
    {"cal_plugin", "version", 16, 8},
    {"cal_plugin", "description", 24, 8},
    {"cal_plugin", "options", 32, 8},
    {"cal_plugin", "option_count", 40, 8},
    {"cal_plugin", "capabilities", 48, 8},
    {"cal_plugin", "open", 56, 8},
    {"cal_plugin", "close", 64, 8},
    {"cal_plugin", "job_order", 72, 8},
    {"cal_plugin", "queue_order", 80, 8},
    {"cal_plugin", "task_order", 88, 8},
    {"cal_plugin", "pre_predicate", 96, 8},
    {"cal_plugin", "predicate", 104, 8},
    {"cal_plugin", "node_order", 112, 8},
    {"cal_plugin", "batch_node_order", 120, 8},
    {"cal_plugin", "best_node", 128, 8},
    {"cal_plugin", "preemptable", 136, 8},
    {"cal_plugin", "reclaimable", 144, 8},
    {"cal_plugin", "victim_tasks", 152, 8},
    {"cal_plugin", "overused", 160, 8},
    {"cal_plugin", "allocatable", 168, 8},
    {"cal_plugin", "preemptive", 176, 8},
    {"cal_plugin", "job_ready", 184, 8},
    {"cal_plugin", "job_pipelined", 192, 8},
    {"cal_plugin", "job_enqueueable", 200, 8},
    {"cal_plugin", "job_starving", 208, 8},
    {"cal_plugin", "job_valid", 216, 8},
    {"cal_plugin", "job_enqueued", 224, 8},
    {"cal_plugin", "on_allocate", 232, 8},
    {"cal_plugin", "on_deallocate", 240, 8},
    {"cal_plugin", "check_args", 248, 8},
    {"cal_plugin", "hyper_node_order", 256, 8},
    {"cal_plugin", "predicate_many", 264, 8},
    {"cal_plugin", "node_order_many", 272, 8},
    // added in 1.7: two slots out of the reserved room (reserved was 280, 104 up to 1.6)
    {"cal_plugin", "unified_evictable", 280, 8},
    {"cal_plugin", "preemptive_many", 288, 8},
    // added in 1.8: four slots out of the reserved room (reserved was 296, 88 at 1.7)
    {"cal_plugin", "sub_job_order", 296, 8},
    {"cal_plugin", "sub_job_ready", 304, 8},
    {"cal_plugin", "sub_job_pipelined", 312, 8},
    {"cal_plugin", "sub_job_hyper_node_order", 320, 8},
    {"cal_plugin", "reserved", 328, 56},
    // added in 1.3: the Kubernetes constraint structs
    {"cal_string_list", "items", 0, 8},
    {"cal_string_list", "count", 8, 8},
    {"cal_requirement", "key", 0, 8},
    {"cal_requirement", "op", 8, 4},
    {"cal_requirement", "values", 16, 16},
    {"cal_label_selector", "absent", 0, 4},
    {"cal_label_selector", "requirements", 8, 8},
    {"cal_label_selector", "count", 16, 8},
    {"cal_node_selector_term", "expressions", 0, 8},
    {"cal_node_selector_term", "expression_count", 8, 8},
    {"cal_node_selector_term", "fields", 16, 8},
    {"cal_node_selector_term", "field_count", 24, 8},
    {"cal_preferred_node_term", "weight", 0, 4},
    {"cal_preferred_node_term", "term", 8, 32},
    {"cal_pod_affinity_term", "weight", 0, 4},
    {"cal_pod_affinity_term", "topology_key", 8, 8},
    {"cal_pod_affinity_term", "selector", 16, 24},
    {"cal_pod_affinity_term", "namespaces", 40, 16},
    {"cal_pod_affinity_term", "has_namespace_selector", 56, 4},
    {"cal_pod_affinity_term", "namespace_selector", 64, 24},
    {"cal_pod_affinity_term", "match_label_keys", 88, 16},
    {"cal_pod_affinity_term", "mismatch_label_keys", 104, 16},
    {"cal_spread_constraint", "max_skew", 0, 4},
    {"cal_spread_constraint", "topology_key", 8, 8},
    {"cal_spread_constraint", "do_not_schedule", 16, 4},
    {"cal_spread_constraint", "selector", 24, 24},
    {"cal_spread_constraint", "min_domains", 48, 4},
    {"cal_spread_constraint", "node_affinity_policy_honor", 52, 4},
    {"cal_spread_constraint", "node_taints_policy_honor", 56, 4},
    {"cal_spread_constraint", "match_label_keys", 64, 16},
    {"cal_host_port", "port", 0, 4},
    {"cal_host_port", "protocol", 8, 8},
    {"cal_host_port", "host_ip", 16, 8},
    {"cal_image", "struct_size", 0, 4},
    {"cal_image", "names", 8, 16},
    {"cal_image", "size_bytes", 24, 8},
    {"cal_pod_constraints", "struct_size", 0, 4},
    {"cal_pod_constraints", "has_required_node_affinity", 4, 4},
    {"cal_pod_constraints", "required_node_terms", 8, 8},
    {"cal_pod_constraints", "required_node_term_count", 16, 8},
    {"cal_pod_constraints", "preferred_node_terms", 24, 8},
    {"cal_pod_constraints", "preferred_node_term_count", 32, 8},
    {"cal_pod_constraints", "required_affinity", 40, 8},
    {"cal_pod_constraints", "required_affinity_count", 48, 8},
    {"cal_pod_constraints", "preferred_affinity", 56, 8},
    {"cal_pod_constraints", "preferred_affinity_count", 64, 8},
    {"cal_pod_constraints", "required_anti_affinity", 72, 8},
    {"cal_pod_constraints", "required_anti_affinity_count", 80, 8},
    {"cal_pod_constraints", "preferred_anti_affinity", 88, 8},
    {"cal_pod_constraints", "preferred_anti_affinity_count", 96, 8},
    {"cal_pod_constraints", "spread", 104, 8},
    {"cal_pod_constraints", "spread_count", 112, 8},
    {"cal_pod_constraints", "host_ports", 120, 8},
    {"cal_pod_constraints", "host_port_count", 128, 8},
    {"cal_pod_constraints", "images", 136, 16},
    // added in 1.4
    {"cal_pod_constraints", "claims", 152, 16},
    {"cal_storage_class", "struct_size", 0, 4},
    {"cal_storage_class", "name", 8, 8},
    {"cal_storage_class", "provisioner", 16, 8},
    {"cal_storage_class", "wait_for_first_consumer", 24, 4},
    {"cal_storage_class", "allowed_topologies", 32, 8},
    {"cal_storage_class", "allowed_topology_count", 40, 8},
    {"cal_storage_class", "csi_driver_parameter", 48, 8},
    {"cal_persistent_volume", "struct_size", 0, 4},
    {"cal_persistent_volume", "name", 8, 8},
    {"cal_persistent_volume", "storage_class", 16, 8},
    {"cal_persistent_volume", "capacity", 24, 8},
    {"cal_persistent_volume", "access_modes", 32, 4},
    {"cal_persistent_volume", "block", 36, 4},
    {"cal_persistent_volume", "node_affinity_terms", 40, 8},
    {"cal_persistent_volume", "node_affinity_term_count", 48, 8},
    {"cal_persistent_volume", "phase", 56, 4},
    {"cal_persistent_volume", "claim_namespace", 64, 8},
    {"cal_persistent_volume", "claim_name", 72, 8},
    {"cal_persistent_volume", "claim_uid", 80, 8},
    {"cal_persistent_volume", "csi_driver", 88, 8},
    {"cal_persistent_volume", "deleting", 96, 4},
    {"cal_persistent_volume", "volume_attributes_class", 104, 8},
    {"cal_persistent_volume", "label_keys", 112, 8},
    {"cal_persistent_volume", "label_values", 120, 8},
    {"cal_persistent_volume", "label_count", 128, 8},
    {"cal_persistent_volume_claim", "struct_size", 0, 4},
    {"cal_persistent_volume_claim", "namespace_name", 8, 8},
    {"cal_persistent_volume_claim", "name", 16, 8},
    {"cal_persistent_volume_claim", "uid", 24, 8},
    {"cal_persistent_volume_claim", "storage_class", 32, 8},
    {"cal_persistent_volume_claim", "volume_name", 40, 8},
    {"cal_persistent_volume_claim", "bind_completed", 48, 4},
    {"cal_persistent_volume_claim", "selected_node", 56, 8},
    {"cal_persistent_volume_claim", "phase", 64, 4},
    {"cal_persistent_volume_claim", "deleting", 68, 4},
    {"cal_persistent_volume_claim", "request", 72, 8},
    {"cal_persistent_volume_claim", "has_request", 80, 4},
    {"cal_persistent_volume_claim", "access_modes", 84, 4},
    {"cal_persistent_volume_claim", "block", 88, 4},
    {"cal_persistent_volume_claim", "has_selector", 92, 4},
    {"cal_persistent_volume_claim", "selector", 96, 24},
    {"cal_persistent_volume_claim", "volume_attributes_class", 120, 8},
    // added in 1.5
    {"cal_queue_affinity", "struct_size", 0, 4},
    {"cal_queue_affinity", "required", 8, 16},
    {"cal_queue_affinity", "preferred", 24, 16},
    {"cal_queue_affinity", "anti_required", 40, 16},
    {"cal_queue_affinity", "anti_preferred", 56, 16},
    {"cal_disruption_budget", "struct_size", 0, 4},
    {"cal_disruption_budget", "namespace_name", 8, 8},
    {"cal_disruption_budget", "name", 16, 8},
    {"cal_disruption_budget", "selector", 24, 24},
    {"cal_disruption_budget", "disruptions_allowed", 48, 4},
    {"cal_disruption_budget", "disrupted_pods", 56, 16},
    {"cal_resource_quota", "struct_size", 0, 4},
    {"cal_resource_quota", "namespace_name", 8, 8},
    {"cal_resource_quota", "name", 16, 8},
    {"cal_resource_quota", "resources", 24, 8},
    {"cal_resource_quota", "hard", 32, 8},
    {"cal_resource_quota", "used", 40, 8},
    {"cal_resource_quota", "resource_count", 48, 8},
    // added in 1.7
    {"cal_eviction_context", "struct_size", 0, 4},
    {"cal_eviction_context", "kind", 4, 4},
    {"cal_eviction_context", "job", 8, 8},
    {"cal_eviction_context", "task", 16, 8},
    {"cal_eviction_context", "hypernode", 24, 8},
    {"cal_eviction_context", "hypernode_handle", 32, 8},
};

struct StructLayout {
  const char* name;
  size_t size;
  size_t align;
};
// KEPT FOREVER. sizeof(cal_plugin) was 384 at 1.0 too (the slots of 1.1 came out of the
// reserved room); cal_host_api was 824 bytes at 1.0 (CAL_HOST_API_V1_0_SIZE), 952 at 1.1, 968
// at 1.2, 1080 at 1.3, 1144 at 1.4, 1232 at 1.5, 1240 at 1.6 and 1.7, and is 1376 at 1.8.
const StructLayout kStructs[] = {
    {"cal_status", 260, 4},   {"cal_taint", 40, 8},   {"cal_option", 40, 8},
    {"cal_host_api", 1376, 8}, {"cal_plugin", 384, 8},
    // added in 1.3
    {"cal_string_list", 16, 8},
    {"cal_requirement", 32, 8},
    {"cal_label_selector", 24, 8},
    {"cal_node_selector_term", 32, 8},
    {"cal_preferred_node_term", 40, 8},
    {"cal_pod_affinity_term", 120, 8},
    {"cal_spread_constraint", 80, 8},
    {"cal_host_port", 24, 8},
    {"cal_image", 32, 8},
    {"cal_pod_constraints", 168, 8},  // 152 at 1.3; 1.4 appended claims
    // added in 1.4
    {"cal_storage_class", 56, 8},
    {"cal_persistent_volume", 136, 8},
    {"cal_persistent_volume_claim", 128, 8},
    // added in 1.5
    {"cal_queue_affinity", 72, 8},
    {"cal_disruption_budget", 72, 8},
    {"cal_resource_quota", 56, 8},
    // added in 1.7
    {"cal_eviction_context", 40, 8},
};

// The actual layouts, as this C++ compiler sees them.
#define CAL_MEMBER(s, m) {#s, #m, offsetof(s, m), sizeof(((s*)nullptr)->m)}
const Member kActual[] = {
    CAL_MEMBER(cal_status, struct_size),
    CAL_MEMBER(cal_status, reason),
    CAL_MEMBER(cal_taint, struct_size),
    CAL_MEMBER(cal_taint, key),
    CAL_MEMBER(cal_taint, value),
    CAL_MEMBER(cal_taint, effect),
    CAL_MEMBER(cal_taint, op),
    CAL_MEMBER(cal_option, struct_size),
    CAL_MEMBER(cal_option, name),
    CAL_MEMBER(cal_option, type),
    CAL_MEMBER(cal_option, default_value),
    CAL_MEMBER(cal_option, description),
    CAL_MEMBER(cal_host_api, struct_size),
    CAL_MEMBER(cal_host_api, abi_version),
    CAL_MEMBER(cal_host_api, log),
    CAL_MEMBER(cal_host_api, status_set),
    CAL_MEMBER(cal_host_api, arg_is_set),
    CAL_MEMBER(cal_host_api, arg_bool),
    CAL_MEMBER(cal_host_api, arg_int),
    CAL_MEMBER(cal_host_api, arg_double),
    CAL_MEMBER(cal_host_api, arg_string),
    CAL_MEMBER(cal_host_api, arg_count),
    CAL_MEMBER(cal_host_api, arg_name),
    CAL_MEMBER(cal_host_api, resource_count),
    CAL_MEMBER(cal_host_api, resource_name),
    CAL_MEMBER(cal_host_api, resource_id),
    CAL_MEMBER(cal_host_api, cluster_total),
    CAL_MEMBER(cal_host_api, now),
    CAL_MEMBER(cal_host_api, job_count),
    CAL_MEMBER(cal_host_api, job_at),
    CAL_MEMBER(cal_host_api, node_count),
    CAL_MEMBER(cal_host_api, node_at),
    CAL_MEMBER(cal_host_api, queue_count),
    CAL_MEMBER(cal_host_api, queue_at),
    CAL_MEMBER(cal_host_api, queue_by_name),
    CAL_MEMBER(cal_host_api, node_by_name),
    CAL_MEMBER(cal_host_api, job_name),
    CAL_MEMBER(cal_host_api, job_namespace),
    CAL_MEMBER(cal_host_api, job_queue),
    CAL_MEMBER(cal_host_api, job_min_available),
    CAL_MEMBER(cal_host_api, job_priority),
    CAL_MEMBER(cal_host_api, job_created),
    CAL_MEMBER(cal_host_api, job_phase),
    CAL_MEMBER(cal_host_api, job_phase_since),
    CAL_MEMBER(cal_host_api, job_task_count),
    CAL_MEMBER(cal_host_api, job_task_at),
    CAL_MEMBER(cal_host_api, job_status_count),
    CAL_MEMBER(cal_host_api, job_ready_num),
    CAL_MEMBER(cal_host_api, job_waiting_num),
    CAL_MEMBER(cal_host_api, job_valid_num),
    CAL_MEMBER(cal_host_api, job_role_count),
    CAL_MEMBER(cal_host_api, job_role_name),
    CAL_MEMBER(cal_host_api, job_role_min),
    CAL_MEMBER(cal_host_api, job_role_ready),
    CAL_MEMBER(cal_host_api, job_role_waiting),
    CAL_MEMBER(cal_host_api, job_role_valid),
    CAL_MEMBER(cal_host_api, job_allocated),
    CAL_MEMBER(cal_host_api, job_total_request),
    CAL_MEMBER(cal_host_api, job_min_resources),
    CAL_MEMBER(cal_host_api, job_set_pending_reason),
    CAL_MEMBER(cal_host_api, task_name),
    CAL_MEMBER(cal_host_api, task_job),
    CAL_MEMBER(cal_host_api, task_node),
    CAL_MEMBER(cal_host_api, task_status),
    CAL_MEMBER(cal_host_api, task_request),
    CAL_MEMBER(cal_host_api, task_init_request),
    CAL_MEMBER(cal_host_api, task_priority),
    CAL_MEMBER(cal_host_api, task_preemptable),
    CAL_MEMBER(cal_host_api, task_best_effort),
    CAL_MEMBER(cal_host_api, task_preempt_never),
    CAL_MEMBER(cal_host_api, task_role),
    CAL_MEMBER(cal_host_api, task_created),
    CAL_MEMBER(cal_host_api, task_label),
    CAL_MEMBER(cal_host_api, task_annotation),
    CAL_MEMBER(cal_host_api, task_selector_count),
    CAL_MEMBER(cal_host_api, task_selector_key),
    CAL_MEMBER(cal_host_api, task_selector_value),
    CAL_MEMBER(cal_host_api, task_toleration_count),
    CAL_MEMBER(cal_host_api, task_toleration_at),
    CAL_MEMBER(cal_host_api, node_name),
    CAL_MEMBER(cal_host_api, node_allocatable),
    CAL_MEMBER(cal_host_api, node_idle),
    CAL_MEMBER(cal_host_api, node_used),
    CAL_MEMBER(cal_host_api, node_releasing),
    CAL_MEMBER(cal_host_api, node_pipelined),
    CAL_MEMBER(cal_host_api, node_future_idle),
    CAL_MEMBER(cal_host_api, node_pods_used),
    CAL_MEMBER(cal_host_api, node_pods_max),
    CAL_MEMBER(cal_host_api, node_unschedulable),
    CAL_MEMBER(cal_host_api, node_label),
    CAL_MEMBER(cal_host_api, node_label_count),
    CAL_MEMBER(cal_host_api, node_label_key),
    CAL_MEMBER(cal_host_api, node_label_value),
    CAL_MEMBER(cal_host_api, node_taint_count),
    CAL_MEMBER(cal_host_api, node_taint_at),
    CAL_MEMBER(cal_host_api, node_task_count),
    CAL_MEMBER(cal_host_api, node_task_at),
    CAL_MEMBER(cal_host_api, queue_name),
    CAL_MEMBER(cal_host_api, queue_weight),
    CAL_MEMBER(cal_host_api, queue_capability),
    CAL_MEMBER(cal_host_api, queue_deserved),
    CAL_MEMBER(cal_host_api, queue_guarantee),
    CAL_MEMBER(cal_host_api, queue_reclaimable),
    CAL_MEMBER(cal_host_api, queue_priority),
    CAL_MEMBER(cal_host_api, queue_state),
    CAL_MEMBER(cal_host_api, queue_parent),
    CAL_MEMBER(cal_host_api, queue_created),
    CAL_MEMBER(cal_host_api, task_priority_class),
    CAL_MEMBER(cal_host_api, arg_hierarchy),
    CAL_MEMBER(cal_host_api, task_set_annotation),
    CAL_MEMBER(cal_host_api, job_annotation),
    CAL_MEMBER(cal_host_api, node_annotation),
    CAL_MEMBER(cal_host_api, node_numa_count),
    CAL_MEMBER(cal_host_api, node_numa_cpu),
    CAL_MEMBER(cal_host_api, node_numa_memory),
    CAL_MEMBER(cal_host_api, node_topology_policy),
    CAL_MEMBER(cal_host_api, node_index),
    CAL_MEMBER(cal_host_api, node_pod_requests),
    CAL_MEMBER(cal_host_api, node_pod_requests_nonzero),
    CAL_MEMBER(cal_host_api, hypernode_count),
    CAL_MEMBER(cal_host_api, hypernode_at),
    CAL_MEMBER(cal_host_api, hypernode_name),
    CAL_MEMBER(cal_host_api, hypernode_tier),
    CAL_MEMBER(cal_host_api, hypernode_parent),
    CAL_MEMBER(cal_host_api, hypernode_node_count),
    CAL_MEMBER(cal_host_api, hypernode_node_at),
    CAL_MEMBER(cal_host_api, node_hypernode_count),
    CAL_MEMBER(cal_host_api, node_hypernode_at),
    CAL_MEMBER(cal_host_api, hypernode_lca),
    CAL_MEMBER(cal_host_api, job_network_topology),
    CAL_MEMBER(cal_host_api, job_allocated_hypernode),
    CAL_MEMBER(cal_host_api, node_table),
    CAL_MEMBER(cal_host_api, state_get),
    CAL_MEMBER(cal_host_api, state_put),
    CAL_MEMBER(cal_host_api, task_pod),
    CAL_MEMBER(cal_host_api, pod_task),
    CAL_MEMBER(cal_host_api, node_pod_count),
    CAL_MEMBER(cal_host_api, node_pod_at),
    CAL_MEMBER(cal_host_api, pod_name),
    CAL_MEMBER(cal_host_api, pod_namespace),
    CAL_MEMBER(cal_host_api, pod_label),
    CAL_MEMBER(cal_host_api, pod_label_count),
    CAL_MEMBER(cal_host_api, pod_label_key),
    CAL_MEMBER(cal_host_api, pod_label_value),
    CAL_MEMBER(cal_host_api, pod_constraints),
    CAL_MEMBER(cal_host_api, pod_terminating),
    CAL_MEMBER(cal_host_api, node_image_count),
    CAL_MEMBER(cal_host_api, node_image_at),
    CAL_MEMBER(cal_host_api, storage_class_get),
    CAL_MEMBER(cal_host_api, volume_get),
    CAL_MEMBER(cal_host_api, claim_get),
    CAL_MEMBER(cal_host_api, volume_count),
    CAL_MEMBER(cal_host_api, volume_at),
    CAL_MEMBER(cal_host_api, volume_assumed_claim),
    CAL_MEMBER(cal_host_api, claim_selected_node),
    CAL_MEMBER(cal_host_api, task_assume_volume),
    CAL_MEMBER(cal_host_api, queue_annotation),
    CAL_MEMBER(cal_host_api, queue_affinity),
    CAL_MEMBER(cal_host_api, task_scheduled_time),
    CAL_MEMBER(cal_host_api, disruption_budget_count),
    CAL_MEMBER(cal_host_api, disruption_budget_at),
    CAL_MEMBER(cal_host_api, resource_quota_count),
    CAL_MEMBER(cal_host_api, resource_quota_at),
    CAL_MEMBER(cal_host_api, job_fit_error),
    CAL_MEMBER(cal_host_api, job_schedulable_num),
    CAL_MEMBER(cal_host_api, job_set_unschedulable_condition),
    CAL_MEMBER(cal_host_api, job_min_resource),
    CAL_MEMBER(cal_host_api, queue_set_fair_share),
    CAL_MEMBER(cal_host_api, job_sub_job_count),
    CAL_MEMBER(cal_host_api, job_sub_job_at),
    CAL_MEMBER(cal_host_api, task_sub_job),
    CAL_MEMBER(cal_host_api, sub_job_job),
    CAL_MEMBER(cal_host_api, sub_job_uid),
    CAL_MEMBER(cal_host_api, sub_job_group),
    CAL_MEMBER(cal_host_api, sub_job_min_available),
    CAL_MEMBER(cal_host_api, sub_job_priority),
    CAL_MEMBER(cal_host_api, sub_job_match_index),
    CAL_MEMBER(cal_host_api, sub_job_task_count),
    CAL_MEMBER(cal_host_api, sub_job_task_at),
    CAL_MEMBER(cal_host_api, sub_job_status_count),
    CAL_MEMBER(cal_host_api, sub_job_network_topology),
    CAL_MEMBER(cal_host_api, sub_job_allocated_hypernode),
    CAL_MEMBER(cal_host_api, job_sub_group_count),
    CAL_MEMBER(cal_host_api, job_sub_group_at),
    CAL_MEMBER(cal_host_api, task_allocated_hypernode),
    CAL_MEMBER(cal_plugin, struct_size),
    CAL_MEMBER(cal_plugin, abi_version),
    CAL_MEMBER(cal_plugin, name),
    CAL_MEMBER(cal_plugin, version),
    CAL_MEMBER(cal_plugin, description),
    CAL_MEMBER(cal_plugin, options),
    CAL_MEMBER(cal_plugin, option_count),
    CAL_MEMBER(cal_plugin, capabilities),
    CAL_MEMBER(cal_plugin, open),
    CAL_MEMBER(cal_plugin, close),
    CAL_MEMBER(cal_plugin, job_order),
    CAL_MEMBER(cal_plugin, queue_order),
    CAL_MEMBER(cal_plugin, task_order),
    CAL_MEMBER(cal_plugin, pre_predicate),
    CAL_MEMBER(cal_plugin, predicate),
    CAL_MEMBER(cal_plugin, node_order),
    CAL_MEMBER(cal_plugin, batch_node_order),
    CAL_MEMBER(cal_plugin, best_node),
    CAL_MEMBER(cal_plugin, preemptable),
    CAL_MEMBER(cal_plugin, reclaimable),
    CAL_MEMBER(cal_plugin, victim_tasks),
    CAL_MEMBER(cal_plugin, overused),
    CAL_MEMBER(cal_plugin, allocatable),
    CAL_MEMBER(cal_plugin, preemptive),
    CAL_MEMBER(cal_plugin, job_ready),
    CAL_MEMBER(cal_plugin, job_pipelined),
    CAL_MEMBER(cal_plugin, job_enqueueable),
    CAL_MEMBER(cal_plugin, job_starving),
    CAL_MEMBER(cal_plugin, job_valid),
    CAL_MEMBER(cal_plugin, job_enqueued),
    CAL_MEMBER(cal_plugin, on_allocate),
    CAL_MEMBER(cal_plugin, on_deallocate),
    CAL_MEMBER(cal_plugin, check_args),
    CAL_MEMBER(cal_plugin, hyper_node_order),
    CAL_MEMBER(cal_plugin, predicate_many),
    CAL_MEMBER(cal_plugin, node_order_many),
    CAL_MEMBER(cal_plugin, unified_evictable),
    CAL_MEMBER(cal_plugin, preemptive_many),
    CAL_MEMBER(cal_plugin, sub_job_order),
    CAL_MEMBER(cal_plugin, sub_job_ready),
    CAL_MEMBER(cal_plugin, sub_job_pipelined),
    CAL_MEMBER(cal_plugin, sub_job_hyper_node_order),
    CAL_MEMBER(cal_plugin, reserved),
    CAL_MEMBER(cal_string_list, items),
    CAL_MEMBER(cal_string_list, count),
    CAL_MEMBER(cal_requirement, key),
    CAL_MEMBER(cal_requirement, op),
    CAL_MEMBER(cal_requirement, values),
    CAL_MEMBER(cal_label_selector, absent),
    CAL_MEMBER(cal_label_selector, requirements),
    CAL_MEMBER(cal_label_selector, count),
    CAL_MEMBER(cal_node_selector_term, expressions),
    CAL_MEMBER(cal_node_selector_term, expression_count),
    CAL_MEMBER(cal_node_selector_term, fields),
    CAL_MEMBER(cal_node_selector_term, field_count),
    CAL_MEMBER(cal_preferred_node_term, weight),
    CAL_MEMBER(cal_preferred_node_term, term),
    CAL_MEMBER(cal_pod_affinity_term, weight),
    CAL_MEMBER(cal_pod_affinity_term, topology_key),
    CAL_MEMBER(cal_pod_affinity_term, selector),
    CAL_MEMBER(cal_pod_affinity_term, namespaces),
    CAL_MEMBER(cal_pod_affinity_term, has_namespace_selector),
    CAL_MEMBER(cal_pod_affinity_term, namespace_selector),
    CAL_MEMBER(cal_pod_affinity_term, match_label_keys),
    CAL_MEMBER(cal_pod_affinity_term, mismatch_label_keys),
    CAL_MEMBER(cal_spread_constraint, max_skew),
    CAL_MEMBER(cal_spread_constraint, topology_key),
    CAL_MEMBER(cal_spread_constraint, do_not_schedule),
    CAL_MEMBER(cal_spread_constraint, selector),
    CAL_MEMBER(cal_spread_constraint, min_domains),
    CAL_MEMBER(cal_spread_constraint, node_affinity_policy_honor),
    CAL_MEMBER(cal_spread_constraint, node_taints_policy_honor),
    CAL_MEMBER(cal_spread_constraint, match_label_keys),
    CAL_MEMBER(cal_host_port, port),
    CAL_MEMBER(cal_host_port, protocol),
    CAL_MEMBER(cal_host_port, host_ip),
    CAL_MEMBER(cal_image, struct_size),
    CAL_MEMBER(cal_image, names),
    CAL_MEMBER(cal_image, size_bytes),
    CAL_MEMBER(cal_pod_constraints, struct_size),
    CAL_MEMBER(cal_pod_constraints, has_required_node_affinity),
    CAL_MEMBER(cal_pod_constraints, required_node_terms),
    CAL_MEMBER(cal_pod_constraints, required_node_term_count),
    CAL_MEMBER(cal_pod_constraints, preferred_node_terms),
    CAL_MEMBER(cal_pod_constraints, preferred_node_term_count),
    CAL_MEMBER(cal_pod_constraints, required_affinity),
    CAL_MEMBER(cal_pod_constraints, required_affinity_count),
    CAL_MEMBER(cal_pod_constraints, preferred_affinity),
    CAL_MEMBER(cal_pod_constraints, preferred_affinity_count),
    CAL_MEMBER(cal_pod_constraints, required_anti_affinity),
    CAL_MEMBER(cal_pod_constraints, required_anti_affinity_count),
    CAL_MEMBER(cal_pod_constraints, preferred_anti_affinity),
    CAL_MEMBER(cal_pod_constraints, preferred_anti_affinity_count),
    CAL_MEMBER(cal_pod_constraints, spread),
    CAL_MEMBER(cal_pod_constraints, spread_count),
    CAL_MEMBER(cal_pod_constraints, host_ports),
    CAL_MEMBER(cal_pod_constraints, host_port_count),
    CAL_MEMBER(cal_pod_constraints, images),
    CAL_MEMBER(cal_pod_constraints, claims),
    CAL_MEMBER(cal_storage_class, struct_size),
    CAL_MEMBER(cal_storage_class, name),
    CAL_MEMBER(cal_storage_class, provisioner),
    CAL_MEMBER(cal_storage_class, wait_for_first_consumer),
    CAL_MEMBER(cal_storage_class, allowed_topologies),
    CAL_MEMBER(cal_storage_class, allowed_topology_count),
    CAL_MEMBER(cal_storage_class, csi_driver_parameter),
    CAL_MEMBER(cal_persistent_volume, struct_size),
    CAL_MEMBER(cal_persistent_volume, name),
    CAL_MEMBER(cal_persistent_volume, storage_class),
    CAL_MEMBER(cal_persistent_volume, capacity),
    CAL_MEMBER(cal_persistent_volume, access_modes),
    CAL_MEMBER(cal_persistent_volume, block),
    CAL_MEMBER(cal_persistent_volume, node_affinity_terms),
    CAL_MEMBER(cal_persistent_volume, node_affinity_term_count),
    CAL_MEMBER(cal_persistent_volume, phase),
    CAL_MEMBER(cal_persistent_volume, claim_namespace),
    CAL_MEMBER(cal_persistent_volume, claim_name),
    CAL_MEMBER(cal_persistent_volume, claim_uid),
    CAL_MEMBER(cal_persistent_volume, csi_driver),
    CAL_MEMBER(cal_persistent_volume, deleting),
    CAL_MEMBER(cal_persistent_volume, volume_attributes_class),
    CAL_MEMBER(cal_persistent_volume, label_keys),
    CAL_MEMBER(cal_persistent_volume, label_values),
    CAL_MEMBER(cal_persistent_volume, label_count),
    CAL_MEMBER(cal_persistent_volume_claim, struct_size),
    CAL_MEMBER(cal_persistent_volume_claim, namespace_name),
    CAL_MEMBER(cal_persistent_volume_claim, name),
    CAL_MEMBER(cal_persistent_volume_claim, uid),
    CAL_MEMBER(cal_persistent_volume_claim, storage_class),
    CAL_MEMBER(cal_persistent_volume_claim, volume_name),
    CAL_MEMBER(cal_persistent_volume_claim, bind_completed),
    CAL_MEMBER(cal_persistent_volume_claim, selected_node),
    CAL_MEMBER(cal_persistent_volume_claim, phase),
    CAL_MEMBER(cal_persistent_volume_claim, deleting),
    CAL_MEMBER(cal_persistent_volume_claim, request),
    CAL_MEMBER(cal_persistent_volume_claim, has_request),
    CAL_MEMBER(cal_persistent_volume_claim, access_modes),
    CAL_MEMBER(cal_persistent_volume_claim, block),
    CAL_MEMBER(cal_persistent_volume_claim, has_selector),
    CAL_MEMBER(cal_persistent_volume_claim, selector),
    CAL_MEMBER(cal_persistent_volume_claim, volume_attributes_class),
    CAL_MEMBER(cal_queue_affinity, struct_size),
    CAL_MEMBER(cal_queue_affinity, required),
    CAL_MEMBER(cal_queue_affinity, preferred),
    CAL_MEMBER(cal_queue_affinity, anti_required),
    CAL_MEMBER(cal_queue_affinity, anti_preferred),
    CAL_MEMBER(cal_disruption_budget, struct_size),
    CAL_MEMBER(cal_disruption_budget, namespace_name),
    CAL_MEMBER(cal_disruption_budget, name),
    CAL_MEMBER(cal_disruption_budget, selector),
    CAL_MEMBER(cal_disruption_budget, disruptions_allowed),
    CAL_MEMBER(cal_disruption_budget, disrupted_pods),
    CAL_MEMBER(cal_resource_quota, struct_size),
    CAL_MEMBER(cal_resource_quota, namespace_name),
    CAL_MEMBER(cal_resource_quota, name),
    CAL_MEMBER(cal_resource_quota, resources),
    CAL_MEMBER(cal_resource_quota, hard),
    CAL_MEMBER(cal_resource_quota, used),
    CAL_MEMBER(cal_resource_quota, resource_count),
    CAL_MEMBER(cal_eviction_context, struct_size),
    CAL_MEMBER(cal_eviction_context, kind),
    CAL_MEMBER(cal_eviction_context, job),
    CAL_MEMBER(cal_eviction_context, task),
    CAL_MEMBER(cal_eviction_context, hypernode),
    CAL_MEMBER(cal_eviction_context, hypernode_handle),
};
#undef CAL_MEMBER

size_t actual_size(const std::string& s) {
  if (s == "cal_status") return sizeof(cal_status);
  if (s == "cal_taint") return sizeof(cal_taint);
  if (s == "cal_option") return sizeof(cal_option);
  if (s == "cal_host_api") return sizeof(cal_host_api);
  if (s == "cal_plugin") return sizeof(cal_plugin);
  if (s == "cal_string_list") return sizeof(cal_string_list);
  if (s == "cal_requirement") return sizeof(cal_requirement);
  if (s == "cal_label_selector") return sizeof(cal_label_selector);
  if (s == "cal_node_selector_term") return sizeof(cal_node_selector_term);
  if (s == "cal_preferred_node_term") return sizeof(cal_preferred_node_term);
  if (s == "cal_pod_affinity_term") return sizeof(cal_pod_affinity_term);
  if (s == "cal_spread_constraint") return sizeof(cal_spread_constraint);
  if (s == "cal_host_port") return sizeof(cal_host_port);
  if (s == "cal_image") return sizeof(cal_image);
  if (s == "cal_pod_constraints") return sizeof(cal_pod_constraints);
  if (s == "cal_storage_class") return sizeof(cal_storage_class);
  if (s == "cal_persistent_volume") return sizeof(cal_persistent_volume);
  if (s == "cal_persistent_volume_claim") return sizeof(cal_persistent_volume_claim);
  if (s == "cal_queue_affinity") return sizeof(cal_queue_affinity);
  if (s == "cal_disruption_budget") return sizeof(cal_disruption_budget);
  if (s == "cal_resource_quota") return sizeof(cal_resource_quota);
  if (s == "cal_eviction_context") return sizeof(cal_eviction_context);
  return 0;
}
size_t actual_align(const std::string& s) {
  if (s == "cal_status") return alignof(cal_status);
  if (s == "cal_taint") return alignof(cal_taint);
  if (s == "cal_option") return alignof(cal_option);
  if (s == "cal_host_api") return alignof(cal_host_api);
  if (s == "cal_plugin") return alignof(cal_plugin);
  if (s == "cal_string_list") return alignof(cal_string_list);
  if (s == "cal_requirement") return alignof(cal_requirement);
  if (s == "cal_label_selector") return alignof(cal_label_selector);
  if (s == "cal_node_selector_term") return alignof(cal_node_selector_term);
  if (s == "cal_preferred_node_term") return alignof(cal_preferred_node_term);
  if (s == "cal_pod_affinity_term") return alignof(cal_pod_affinity_term);
  if (s == "cal_spread_constraint") return alignof(cal_spread_constraint);
  if (s == "cal_host_port") return alignof(cal_host_port);
  if (s == "cal_image") return alignof(cal_image);
  if (s == "cal_pod_constraints") return alignof(cal_pod_constraints);
  if (s == "cal_storage_class") return alignof(cal_storage_class);
  if (s == "cal_persistent_volume") return alignof(cal_persistent_volume);
  if (s == "cal_persistent_volume_claim") return alignof(cal_persistent_volume_claim);
  if (s == "cal_queue_affinity") return alignof(cal_queue_affinity);
  if (s == "cal_disruption_budget") return alignof(cal_disruption_budget);
  if (s == "cal_resource_quota") return alignof(cal_resource_quota);
  if (s == "cal_eviction_context") return alignof(cal_eviction_context);
  return 0;
}

// The structs of plugin.h and their members' names in order, read from the header text
// (comments removed): what the tables above must cover. The header is scanned by hand:
// libstdc++'s std::regex recurses once per character matched, and a pattern spanning a
// comment or a struct body of the 60 KB header overflows the stack (under AddressSanitizer's
// larger frames it did). Only the short declarations go through a regex.
std::string without_comments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      out += ' ';
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) i = text.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::map<std::string, std::vector<std::string>> header_structs() {
  std::ifstream in(std::string(CALDERA_SOURCE_ROOT) + "/sdk/c-abi/caldera/plugin.h");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = without_comments(ss.str());
  std::map<std::string, std::vector<std::string>> out;
  const std::regex head(R"(^typedef\s+struct\s+(\w+)\s*$)");
  const std::regex pointer(R"(\(\s*\*\s*(\w+)\s*\))");
  const std::regex plain(R"((\w+)\s*(\[[^\]]*\])?\s*$)");
  for (size_t at = text.find("typedef"); at != std::string::npos;
       at = text.find("typedef", at + 1)) {
    size_t open = text.find_first_of("{;", at);
    if (open == std::string::npos || text[open] != '{') continue;
    std::smatch m;
    const std::string intro = text.substr(at, open - at);
    if (!std::regex_search(intro, m, head)) continue;  // a typedef of a function, say
    size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    std::vector<std::string>& members = out[m[1]];
    std::stringstream decls(text.substr(open + 1, close - open - 1));
    for (std::string d; std::getline(decls, d, ';');) {
      if (std::regex_search(d, m, pointer))
        members.push_back(m[1]);
      else if (std::regex_search(d, m, plain))
        members.push_back(m[1]);
    }
    at = close;
  }
  return out;
}

}  // namespace

TEST(AbiFreeze, EveryStructAndMemberOfTheHeaderIsRecorded) {
  auto structs = header_structs();
  ASSERT_FALSE(structs.empty()) << "could not read plugin.h";
  std::map<std::string, std::vector<std::string>> recorded;
  for (const Member& m : kMembers) recorded[m.strct].push_back(m.name);
  // A new struct, or a member added, removed, renamed or moved, shows here.
  EXPECT_EQ(structs, recorded);
  std::vector<std::string> names;
  for (const StructLayout& s : kStructs) names.push_back(s.name);
  std::vector<std::string> in_header;
  for (const auto& [n, _] : structs) in_header.push_back(n);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(in_header, names);
}

TEST(AbiFreeze, StructSizes) {
  for (const StructLayout& s : kStructs) {
    EXPECT_EQ(actual_size(s.name), s.size) << s.name;
    EXPECT_EQ(actual_align(s.name), s.align) << s.name;
  }
}

TEST(AbiFreeze, MemberOffsetsAndSizes) {
  ASSERT_EQ(std::size(kActual), std::size(kMembers));
  for (size_t i = 0; i < std::size(kMembers); ++i) {
    const Member& want = kMembers[i];
    const Member& got = kActual[i];
    ASSERT_STREQ(got.strct, want.strct);
    ASSERT_STREQ(got.name, want.name);
    EXPECT_EQ(got.offset, want.offset) << want.strct << "." << want.name;
    EXPECT_EQ(got.size, want.size) << want.strct << "." << want.name;
  }
  // Members come in increasing order and never overlap.
  for (size_t i = 1; i < std::size(kMembers); ++i) {
    if (std::strcmp(kMembers[i].strct, kMembers[i - 1].strct) != 0) continue;
    EXPECT_GE(kMembers[i].offset, kMembers[i - 1].offset + kMembers[i - 1].size)
        << kMembers[i].strct << "." << kMembers[i].name;
  }
}

TEST(AbiFreeze, HostApiGroups) {
  // 1.0: struct_size .. node_topology_policy; the 1.1 group starts at node_index.
  EXPECT_EQ(CAL_HOST_API_V1_0_SIZE, 824u);
  EXPECT_EQ(offsetof(cal_host_api, node_index), 824u);
  EXPECT_EQ(offsetof(cal_host_api, node_topology_policy) + sizeof(void*), 824u);
  EXPECT_EQ(CAL_HOST_API_V1_1_SIZE, 952u);
  EXPECT_EQ(offsetof(cal_host_api, node_table), 944u);
  // 1.2: state_get, state_put.
  EXPECT_EQ(CAL_HOST_API_V1_2_SIZE, 968u);
  EXPECT_EQ(offsetof(cal_host_api, state_get), 952u);
  // 1.3: pods and their constraints, node images.
  EXPECT_EQ(offsetof(cal_host_api, task_pod), 968u);
  EXPECT_EQ(CAL_HOST_API_V1_3_SIZE, 1080u);
  // 1.4: storage.
  EXPECT_EQ(offsetof(cal_host_api, storage_class_get), 1080u);
  EXPECT_EQ(CAL_HOST_API_V1_4_SIZE, 1144u);
  // 1.5: queue node groups, scheduling times, disruption budgets, quotas, the PodGroup's
  // Unschedulable condition.
  EXPECT_EQ(offsetof(cal_host_api, queue_annotation), 1144u);
  EXPECT_EQ(CAL_HOST_API_V1_5_SIZE, 1232u);
  // 1.6: a queue's fair share.
  EXPECT_EQ(offsetof(cal_host_api, queue_set_fair_share), 1232u);
  EXPECT_EQ(CAL_HOST_API_V1_6_SIZE, 1240u);
  // 1.7 added no host function. 1.8: sub-jobs, after 1.6's group.
  EXPECT_EQ(offsetof(cal_host_api, job_sub_job_count), 1240u);
  EXPECT_EQ(CAL_HOST_API_V1_8_SIZE, 1376u);
  EXPECT_EQ(sizeof(cal_host_api), CAL_HOST_API_V1_8_SIZE);
}

TEST(AbiFreeze, PluginDescriptorGroups) {
  EXPECT_EQ(CAL_PLUGIN_V1_0_SIZE, 256u);
  EXPECT_EQ(offsetof(cal_plugin, hyper_node_order), 256u);  // the 1.1 group starts here
  EXPECT_EQ(offsetof(cal_plugin, check_args), 248u);        // the last slot of 1.0
  EXPECT_EQ(CAL_PLUGIN_V1_1_SIZE, 280u);
  // 1.7: unified_evictable and preemptive_many, out of the front of reserved[].
  EXPECT_EQ(offsetof(cal_plugin, unified_evictable), 280u);  // the 1.7 group starts here
  EXPECT_EQ(CAL_PLUGIN_V1_7_SIZE, 296u);
  // 1.8: the four sub-job slots.
  EXPECT_EQ(offsetof(cal_plugin, sub_job_order), 296u);  // the 1.8 group starts here
  EXPECT_EQ(CAL_PLUGIN_V1_8_SIZE, 328u);
  EXPECT_EQ(offsetof(cal_plugin, reserved), 328u);
  EXPECT_EQ(sizeof(((cal_plugin*)nullptr)->reserved), 7 * sizeof(void*));
  // The same size at 1.0 (reserved[16]), 1.1 (three slots + reserved[13]), 1.7 (five
  // slots + reserved[11]) and 1.8 (nine slots + reserved[7]).
  EXPECT_EQ(sizeof(cal_plugin), 384u);
  EXPECT_EQ(CAL_PLUGIN_V1_0_SIZE + 16 * sizeof(void*), sizeof(cal_plugin));
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(0), CAL_PLUGIN_V1_0_SIZE);
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(1), CAL_PLUGIN_V1_1_SIZE);
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(2), CAL_PLUGIN_V1_1_SIZE);  // 1.2 added no slot
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(3), CAL_PLUGIN_V1_1_SIZE);  // nor did 1.3
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(4), CAL_PLUGIN_V1_1_SIZE);  // nor 1.4
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(5), CAL_PLUGIN_V1_1_SIZE);  // nor 1.5
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(6), CAL_PLUGIN_V1_1_SIZE);  // nor 1.6
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(7), CAL_PLUGIN_V1_7_SIZE);
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(8), CAL_PLUGIN_V1_8_SIZE);
  EXPECT_EQ(CAL_PLUGIN_SIZE_OF_MINOR(CAL_ABI_MINOR), CAL_PLUGIN_V1_8_SIZE);

  // CAL_PLUGIN_HAS reads a 1.1 slot only when the minor and the struct size both cover it.
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.hyper_node_order = reinterpret_cast<cal_hyper_node_order_fn>(&d);
  d.struct_size = sizeof d;
  d.abi_version = (1u << 16) | 1u;
  EXPECT_TRUE(CAL_PLUGIN_HAS(&d, hyper_node_order));
  d.abi_version = 1u << 16;  // stamped 1.0: ignored although struct_size reaches it
  EXPECT_FALSE(CAL_PLUGIN_HAS(&d, hyper_node_order));
  EXPECT_EQ(CAL_PLUGIN_COVERED(&d), CAL_PLUGIN_V1_0_SIZE);
  d.abi_version = (1u << 16) | 1u;
  d.struct_size = CAL_PLUGIN_V1_0_SIZE;  // stamped 1.1 but too short
  EXPECT_FALSE(CAL_PLUGIN_HAS(&d, hyper_node_order));

  // A 1.7 slot is read from a descriptor stamped 1.7 only (in a 1.6 one those bytes were
  // reserved words, which the loader requires to be zero and a 1.6 host never read).
  d.struct_size = sizeof d;
  d.unified_evictable = reinterpret_cast<cal_unified_evictable_fn>(&d);
  d.abi_version = (1u << 16) | 7u;
  EXPECT_TRUE(CAL_PLUGIN_HAS(&d, unified_evictable));
  d.abi_version = (1u << 16) | 6u;
  EXPECT_FALSE(CAL_PLUGIN_HAS(&d, unified_evictable));
  EXPECT_EQ(CAL_PLUGIN_COVERED(&d), CAL_PLUGIN_V1_1_SIZE);

  // A 1.8 slot likewise from a descriptor stamped 1.8 only.
  d.sub_job_ready = reinterpret_cast<cal_sub_job_check_fn>(&d);
  d.abi_version = (1u << 16) | 8u;
  EXPECT_TRUE(CAL_PLUGIN_HAS(&d, sub_job_ready));
  d.abi_version = (1u << 16) | 7u;
  EXPECT_FALSE(CAL_PLUGIN_HAS(&d, sub_job_ready));
  EXPECT_EQ(CAL_PLUGIN_COVERED(&d), CAL_PLUGIN_V1_7_SIZE);
}

TEST(AbiFreeze, ConstantsAndEnums) {
  EXPECT_EQ(CAL_ABI_MAJOR, 1);
  EXPECT_STREQ(CAL_ENTRY_SYMBOL, "caldera_plugin_entry");
  EXPECT_EQ(CAL_REASON_MAX, 256);
  EXPECT_EQ(CAL_CAP_NODE_PARALLEL, 1u);
  EXPECT_EQ(sizeof(cal_code), 4u);
  EXPECT_EQ(CAL_SUCCESS, 0);
  EXPECT_EQ(CAL_ERROR, 1);
  EXPECT_EQ(CAL_UNSCHEDULABLE, 2);
  EXPECT_EQ(CAL_UNSCHEDULABLE_AND_UNRESOLVABLE, 3);
  EXPECT_EQ(CAL_WAIT, 4);
  EXPECT_EQ(CAL_SKIP, 5);
  EXPECT_EQ(CAL_REJECT, -1);
  EXPECT_EQ(CAL_ABSTAIN, 0);
  EXPECT_EQ(CAL_PERMIT, 1);
  EXPECT_EQ(CAL_TASK_PENDING, 0);
  EXPECT_EQ(CAL_TASK_ALLOCATED, 1);
  EXPECT_EQ(CAL_TASK_PIPELINED, 2);
  EXPECT_EQ(CAL_TASK_BINDING, 3);
  EXPECT_EQ(CAL_TASK_BOUND, 4);
  EXPECT_EQ(CAL_TASK_RUNNING, 5);
  EXPECT_EQ(CAL_TASK_RELEASING, 6);
  EXPECT_EQ(CAL_TASK_SUCCEEDED, 7);
  EXPECT_EQ(CAL_TASK_FAILED, 8);
  EXPECT_EQ(CAL_TASK_UNKNOWN, 9);
  EXPECT_EQ(CAL_TASK_STATUS_COUNT, 10);
  EXPECT_EQ(CAL_PHASE_PENDING, 0);
  EXPECT_EQ(CAL_PHASE_INQUEUE, 1);
  EXPECT_EQ(CAL_PHASE_RUNNING, 2);
  EXPECT_EQ(CAL_PHASE_UNKNOWN, 3);
  EXPECT_EQ(CAL_PHASE_COMPLETED, 4);
  EXPECT_EQ(CAL_QUEUE_OPEN, 0);
  EXPECT_EQ(CAL_QUEUE_CLOSED, 1);
  EXPECT_EQ(CAL_QUEUE_CLOSING, 2);
  EXPECT_EQ(CAL_TOPOLOGY_NONE, 0);
  EXPECT_EQ(CAL_TOPOLOGY_HARD, 1);
  EXPECT_EQ(CAL_TOPOLOGY_SOFT, 2);
  EXPECT_EQ(CAL_LOG_DEBUG, 0);
  EXPECT_EQ(CAL_LOG_INFO, 1);
  EXPECT_EQ(CAL_LOG_WARN, 2);
  EXPECT_EQ(CAL_LOG_ERROR, 3);
  EXPECT_EQ(CAL_OPT_BOOL, 0);
  EXPECT_EQ(CAL_OPT_INT, 1);
  EXPECT_EQ(CAL_OPT_DOUBLE, 2);
  EXPECT_EQ(CAL_OPT_STRING, 3);
  EXPECT_EQ(CAL_OPT_DURATION, 4);
  EXPECT_EQ(CAL_NODE_ALLOCATABLE, 0);
  EXPECT_EQ(CAL_NODE_IDLE, 1);
  EXPECT_EQ(CAL_NODE_USED, 2);
  EXPECT_EQ(CAL_NODE_RELEASING, 3);
  EXPECT_EQ(CAL_NODE_PIPELINED, 4);
  EXPECT_EQ(CAL_NODE_FUTURE_IDLE, 5);
  EXPECT_EQ(CAL_NODE_POD_REQUESTS, 6);
  EXPECT_EQ(CAL_NODE_POD_REQUESTS_NONZERO, 7);
  EXPECT_EQ(CAL_NODE_FIELD_COUNT, 8);
  EXPECT_EQ(CAL_SELECT_IN, 0);
  EXPECT_EQ(CAL_SELECT_NOT_IN, 1);
  EXPECT_EQ(CAL_SELECT_EXISTS, 2);
  EXPECT_EQ(CAL_SELECT_DOES_NOT_EXIST, 3);
  EXPECT_EQ(CAL_SELECT_GT, 4);
  EXPECT_EQ(CAL_SELECT_LT, 5);
  // added in 1.7
  EXPECT_EQ(CAL_EVICTION_UNKNOWN, 0);
  EXPECT_EQ(CAL_EVICTION_GANG_PREEMPT, 1);
  EXPECT_EQ(CAL_EVICTION_GANG_RECLAIM, 2);
  EXPECT_EQ(CAL_EVICTION_TASK_PREEMPT, 3);
  EXPECT_EQ(CAL_EVICTION_TASK_RECLAIM, 4);
}

// The C view: the same header compiled as C99 lays every member out at the same place.
TEST(AbiFreeze, CViewAgrees) {
  size_t n = 0;
  const abi_c_member* c = abi_c_members(&n);
  ASSERT_EQ(n, std::size(kMembers));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_STREQ(c[i].strct, kMembers[i].strct);
    ASSERT_STREQ(c[i].member, kMembers[i].name);
    EXPECT_EQ(c[i].offset, kMembers[i].offset) << c[i].strct << "." << c[i].member;
    EXPECT_EQ(c[i].size, kMembers[i].size) << c[i].strct << "." << c[i].member;
  }
  const abi_c_member* s = abi_c_struct_sizes(&n);
  ASSERT_EQ(n, std::size(kStructs));
  for (size_t i = 0; i < n; ++i) {
    EXPECT_STREQ(s[i].strct, kStructs[i].name);
    EXPECT_EQ(s[i].offset, kStructs[i].size) << s[i].strct;
  }
}

// The host's table sets every function of every group, and says what it is.
TEST(AbiFreeze, HostTableSetsEveryFunction) {
  const cal_host_api* h = caldera::host_api();
  EXPECT_EQ(h->struct_size, sizeof(cal_host_api));
  EXPECT_EQ(h->abi_version, CAL_ABI_VERSION);
  for (const Member& m : kMembers) {
    if (std::strcmp(m.strct, "cal_host_api") != 0 || m.offset < offsetof(cal_host_api, log))
      continue;
    void* fn = nullptr;
    std::memcpy(&fn, reinterpret_cast<const char*>(h) + m.offset, sizeof fn);
    EXPECT_NE(fn, nullptr) << "host_api.cpp does not set cal_host_api." << m.name;
  }
}
