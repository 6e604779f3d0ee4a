/*
 * spread: a third-party-style plugin in plain C99, built only against the installed SDK
 * (caldera/plugin.h, found with `pkg-config --cflags caldera-sdk`; see the Makefile).
 *
 * It spreads the tasks of one job over the nodes, like the Kubernetes scheduler's
 * SelectorSpread score (kubernetes pkg/scheduler/framework/plugins/selectorspread/
 * selector_spread.go), with "pods of the same job" as the selector: a node's raw count is
 * the number of tasks of the task's job already on it, and the normalized score is
 *
 *     MaxNodeScore * (maxCount - count) / maxCount     (MaxNodeScore when maxCount == 0)
 *
 * times spread.weight. Volcano has no such plugin (its nodeorder plugin forwards to
 * Kubernetes scores but not this one); it suits jobs whose tasks should not share a
 * failure domain. The score needs every candidate node at once (maxCount), so it uses the
 * batch_node_order slot, which adds to the host's score array.
 */
#include <stdlib.h>
#include <string.h>

#include "caldera/plugin.h"

#define MAX_NODE_SCORE 100.0

static const cal_host_api *host;

static const cal_option options[] = {
    {sizeof(cal_option), "spread.weight", CAL_OPT_INT, "1",
     "weight of the spread score (0 turns it off)"},
};

typedef struct spread_state {
  int64_t weight;
} spread_state;

static void *spread_open(cal_session *s, const cal_args *args, cal_code *code, cal_status *st) {
  spread_state *self;
  (void)s;
  self = (spread_state *)malloc(sizeof *self);
  if (!self) {
    *code = CAL_ERROR;
    host->status_set(st, "spread: out of memory");
    return NULL;
  }
  self->weight = host->arg_int(args, "spread.weight");
  return self;
}

static void spread_close(void *self) { free(self); }

/* Tasks of `job` placed on node n, not counting `except` itself. */
static int32_t same_job_tasks(const cal_node *n, const cal_job *job, const cal_task *except) {
  size_t i, count = host->node_task_count(n);
  int32_t same = 0;
  for (i = 0; i < count; ++i) {
    const cal_task *t = host->node_task_at(n, i);
    if (t != except && host->task_job(t) == job) ++same;
  }
  return same;
}

static cal_code spread_batch_node_order(void *self, const cal_task *t,
                                        const cal_node *const *nodes, size_t n, double *scores,
                                        cal_status *st) {
  const spread_state *state = (const spread_state *)self;
  const cal_job *job = host->task_job(t);
  int32_t *counts;
  int32_t max_count = 0;
  size_t i;
  if (n == 0 || state->weight == 0) return CAL_SUCCESS;
  counts = (int32_t *)malloc(n * sizeof *counts);
  if (!counts) {
    host->status_set(st, "spread: out of memory");
    return CAL_ERROR;
  }
  for (i = 0; i < n; ++i) {
    counts[i] = same_job_tasks(nodes[i], job, t);
    if (counts[i] > max_count) max_count = counts[i];
  }
  for (i = 0; i < n; ++i) {
    double score = max_count == 0
                       ? MAX_NODE_SCORE
                       : MAX_NODE_SCORE * (double)(max_count - counts[i]) / (double)max_count;
    scores[i] += (double)state->weight * score;
  }
  free(counts);
  return CAL_SUCCESS;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "spread";
  desc.version = "1.0.0";
  desc.description = "spreads the tasks of a job over nodes (Kubernetes SelectorSpread, by job)";
  desc.options = options;
  desc.option_count = sizeof options / sizeof options[0];
  desc.capabilities = CAL_CAP_NODE_PARALLEL; /* reads only */
  desc.open = spread_open;
  desc.close = spread_close;
  desc.batch_node_order = spread_batch_node_order;
  return &desc;
}
