/* The C view of the frozen ABI layouts (tests/unit/abi_freeze_test.cpp): caldera/plugin.h
 * compiled as strict C99 (-std=c99 -pedantic-errors, tests/meson.build), its headline
 * numbers checked at compile time, and every member's offset and size as a C compiler lays
 * it out handed to the C++ test, which compares them with the recorded numbers. */
#include <stddef.h>

#include "caldera/plugin.h"
#include "abi_freeze_c.h"

/* C99 has no static_assert: a negative array size stops the build. */
#define C_STATIC_ASSERT(cond, name) typedef char c_static_assert_##name[(cond) ? 1 : -1]

/* The same numbers as abi_freeze_test.cpp (LP64); kept forever. */
#if defined(__LP64__) || defined(_LP64)
C_STATIC_ASSERT(sizeof(cal_status) == 260, cal_status_size);
C_STATIC_ASSERT(sizeof(cal_taint) == 40, cal_taint_size);
C_STATIC_ASSERT(sizeof(cal_option) == 40, cal_option_size);
C_STATIC_ASSERT(CAL_HOST_API_V1_0_SIZE == 824, host_api_v1_0_size);
C_STATIC_ASSERT(CAL_HOST_API_V1_1_SIZE == 952, host_api_v1_1_size);
C_STATIC_ASSERT(offsetof(cal_host_api, node_index) == 824, host_api_1_1_group_start);
C_STATIC_ASSERT(CAL_HOST_API_V1_2_SIZE == 968, host_api_v1_2_size);
C_STATIC_ASSERT(sizeof(cal_host_api) == 968, host_api_size);
C_STATIC_ASSERT(CAL_PLUGIN_V1_0_SIZE == 256, plugin_v1_0_size);
C_STATIC_ASSERT(CAL_PLUGIN_V1_1_SIZE == 280, plugin_v1_1_size);
C_STATIC_ASSERT(offsetof(cal_plugin, reserved) == 280, plugin_reserved_offset);
C_STATIC_ASSERT(sizeof(cal_plugin) == 384, plugin_size);
#endif
C_STATIC_ASSERT(CAL_PLUGIN_SIZE_OF_MINOR(0) == CAL_PLUGIN_V1_0_SIZE, size_of_minor_0);
C_STATIC_ASSERT(CAL_PLUGIN_SIZE_OF_MINOR(1) == CAL_PLUGIN_V1_1_SIZE, size_of_minor_1);
C_STATIC_ASSERT(CAL_ABI_VERSION == ((CAL_ABI_MAJOR << 16) | CAL_ABI_MINOR), version_packing);

#define M(s, m) {#s, #m, offsetof(s, m), sizeof(((s *)0)->m)}

static const abi_c_member members[] = {
    M(cal_status, struct_size),
    M(cal_status, reason),
    M(cal_taint, struct_size),
    M(cal_taint, key),
    M(cal_taint, value),
    M(cal_taint, effect),
    M(cal_taint, op),
    M(cal_option, struct_size),
    M(cal_option, name),
    M(cal_option, type),
    M(cal_option, default_value),
    M(cal_option, description),
    M(cal_host_api, struct_size),
    M(cal_host_api, abi_version),
    M(cal_host_api, log),
    M(cal_host_api, status_set),
    M(cal_host_api, arg_is_set),
    M(cal_host_api, arg_bool),
    M(cal_host_api, arg_int),
    M(cal_host_api, arg_double),
    M(cal_host_api, arg_string),
    M(cal_host_api, arg_count),
    M(cal_host_api, arg_name),
    M(cal_host_api, resource_count),
    M(cal_host_api, resource_name),
    M(cal_host_api, resource_id),
    M(cal_host_api, cluster_total),
    M(cal_host_api, now),
    M(cal_host_api, job_count),
    M(cal_host_api, job_at),
    M(cal_host_api, node_count),
    M(cal_host_api, node_at),
    M(cal_host_api, queue_count),
    M(cal_host_api, queue_at),
    M(cal_host_api, queue_by_name),
    M(cal_host_api, node_by_name),
    M(cal_host_api, job_name),
    M(cal_host_api, job_namespace),
    M(cal_host_api, job_queue),
    M(cal_host_api, job_min_available),
    M(cal_host_api, job_priority),
    M(cal_host_api, job_created),
    M(cal_host_api, job_phase),
    M(cal_host_api, job_phase_since),
    M(cal_host_api, job_task_count),
    M(cal_host_api, job_task_at),
    M(cal_host_api, job_status_count),
    M(cal_host_api, job_ready_num),
    M(cal_host_api, job_waiting_num),
    M(cal_host_api, job_valid_num),
    M(cal_host_api, job_role_count),
    M(cal_host_api, job_role_name),
    M(cal_host_api, job_role_min),
    M(cal_host_api, job_role_ready),
    M(cal_host_api, job_role_waiting),
    M(cal_host_api, job_role_valid),
    M(cal_host_api, job_allocated),
    M(cal_host_api, job_total_request),
    M(cal_host_api, job_min_resources),
    M(cal_host_api, job_set_pending_reason),
    M(cal_host_api, task_name),
    M(cal_host_api, task_job),
    M(cal_host_api, task_node),
    M(cal_host_api, task_status),
    M(cal_host_api, task_request),
    M(cal_host_api, task_init_request),
    M(cal_host_api, task_priority),
    M(cal_host_api, task_preemptable),
    M(cal_host_api, task_best_effort),
    M(cal_host_api, task_preempt_never),
    M(cal_host_api, task_role),
    M(cal_host_api, task_created),
    M(cal_host_api, task_label),
    M(cal_host_api, task_annotation),
    M(cal_host_api, task_selector_count),
    M(cal_host_api, task_selector_key),
    M(cal_host_api, task_selector_value),
    M(cal_host_api, task_toleration_count),
    M(cal_host_api, task_toleration_at),
    M(cal_host_api, node_name),
    M(cal_host_api, node_allocatable),
    M(cal_host_api, node_idle),
    M(cal_host_api, node_used),
    M(cal_host_api, node_releasing),
    M(cal_host_api, node_pipelined),
    M(cal_host_api, node_future_idle),
    M(cal_host_api, node_pods_used),
    M(cal_host_api, node_pods_max),
    M(cal_host_api, node_unschedulable),
    M(cal_host_api, node_label),
    M(cal_host_api, node_label_count),
    M(cal_host_api, node_label_key),
    M(cal_host_api, node_label_value),
    M(cal_host_api, node_taint_count),
    M(cal_host_api, node_taint_at),
    M(cal_host_api, node_task_count),
    M(cal_host_api, node_task_at),
    M(cal_host_api, queue_name),
    M(cal_host_api, queue_weight),
    M(cal_host_api, queue_capability),
    M(cal_host_api, queue_deserved),
    M(cal_host_api, queue_guarantee),
    M(cal_host_api, queue_reclaimable),
    M(cal_host_api, queue_priority),
    M(cal_host_api, queue_state),
    M(cal_host_api, queue_parent),
    M(cal_host_api, queue_created),
    M(cal_host_api, task_priority_class),
    M(cal_host_api, arg_hierarchy),
    M(cal_host_api, task_set_annotation),
    M(cal_host_api, job_annotation),
    M(cal_host_api, node_annotation),
    M(cal_host_api, node_numa_count),
    M(cal_host_api, node_numa_cpu),
    M(cal_host_api, node_numa_memory),
    M(cal_host_api, node_topology_policy),
    M(cal_host_api, node_index),
    M(cal_host_api, node_pod_requests),
    M(cal_host_api, node_pod_requests_nonzero),
    M(cal_host_api, hypernode_count),
    M(cal_host_api, hypernode_at),
    M(cal_host_api, hypernode_name),
    M(cal_host_api, hypernode_tier),
    M(cal_host_api, hypernode_parent),
    M(cal_host_api, hypernode_node_count),
    M(cal_host_api, hypernode_node_at),
    M(cal_host_api, node_hypernode_count),
    M(cal_host_api, node_hypernode_at),
    M(cal_host_api, hypernode_lca),
    M(cal_host_api, job_network_topology),
    M(cal_host_api, job_allocated_hypernode),
    M(cal_host_api, node_table),
    M(cal_host_api, state_get),
    M(cal_host_api, state_put),
    M(cal_plugin, struct_size),
    M(cal_plugin, abi_version),
    M(cal_plugin, name),
    M(cal_plugin, version),
    M(cal_plugin, description),
    M(cal_plugin, options),
    M(cal_plugin, option_count),
    M(cal_plugin, capabilities),
    M(cal_plugin, open),
    M(cal_plugin, close),
    M(cal_plugin, job_order),
    M(cal_plugin, queue_order),
    M(cal_plugin, task_order),
    M(cal_plugin, pre_predicate),
    M(cal_plugin, predicate),
    M(cal_plugin, node_order),
    M(cal_plugin, batch_node_order),
    M(cal_plugin, best_node),
    M(cal_plugin, preemptable),
    M(cal_plugin, reclaimable),
    M(cal_plugin, victim_tasks),
    M(cal_plugin, overused),
    M(cal_plugin, allocatable),
    M(cal_plugin, preemptive),
    M(cal_plugin, job_ready),
    M(cal_plugin, job_pipelined),
    M(cal_plugin, job_enqueueable),
    M(cal_plugin, job_starving),
    M(cal_plugin, job_valid),
    M(cal_plugin, job_enqueued),
    M(cal_plugin, on_allocate),
    M(cal_plugin, on_deallocate),
    M(cal_plugin, check_args),
    M(cal_plugin, hyper_node_order),
    M(cal_plugin, predicate_many),
    M(cal_plugin, node_order_many),
    M(cal_plugin, reserved),
};

#define S(s) {#s, #s, sizeof(s), 0}
static const abi_c_member sizes[] = {
    S(cal_status), S(cal_taint), S(cal_option), S(cal_host_api), S(cal_plugin)
};

const abi_c_member *abi_c_members(size_t *n) {
  *n = sizeof members / sizeof members[0];
  return members;
}

const abi_c_member *abi_c_struct_sizes(size_t *n) {
  *n = sizeof sizes / sizeof sizes[0];
  return sizes;
}
