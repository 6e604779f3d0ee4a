/* nodeprefer: a tiny node_order plugin for the reload tests (tests/integration/).
 *
 * It prefers nodes by name: the ascending build (NODEPREFER_DESC undefined) gives the
 * alphabetically first candidate the highest score, the descending build the last one.
 * Both builds are the plugin "nodeprefer" with the same version, so a test that replaces
 * one file with the other at the same path sees the bind targets flip only if the host
 * really loads the new build (not the library dlopen already has for that path).
 *
 * Score of a candidate: nodeprefer.weight * (number of candidates - rank), rank 0 being
 * the preferred end, so with the default weight 100 the preference outweighs binpack at
 * weight 1 (at most 100) but not binpack at weight 100. */
#include <stdlib.h>
#include <string.h>

#include "caldera/plugin.h"

static const cal_host_api *host;

static const cal_option options[] = {
    {sizeof(cal_option), "nodeprefer.weight", CAL_OPT_INT, "100",
     "score step between two neighbouring nodes in name order"},
};

typedef struct {
  double weight;
} state;

static void *open_fn(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  (void)s;
  (void)st;
  state *self = (state *)malloc(sizeof *self);
  if (!self) {
    *code = CAL_ERROR;
    host->status_set(st, "out of memory");
    return NULL;
  }
  self->weight = (double)host->arg_int(a, "nodeprefer.weight");
  return self;
}

static void close_fn(void *self) { free(self); }

static cal_code batch_node_order(void *vself, const cal_task *t, const cal_node *const *nodes,
                                 size_t n, double *scores, cal_status *st) {
  (void)t;
  (void)st;
  const state *self = (const state *)vself;
  for (size_t i = 0; i < n; ++i) {
    /* rank: how many candidates come before this one in the preferred order */
    size_t rank = 0;
    const char *mine = host->node_name(nodes[i]);
    for (size_t j = 0; j < n; ++j) {
      int c = strcmp(host->node_name(nodes[j]), mine);
#ifdef NODEPREFER_DESC
      if (c > 0) ++rank;
#else
      if (c < 0) ++rank;
#endif
    }
    scores[i] += self->weight * (double)(n - rank);
  }
  return CAL_SUCCESS;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "nodeprefer";
  desc.version = "1.0.0";
#ifdef NODEPREFER_DESC
  desc.description = "prefers nodes by name, descending (reload test plugin)";
#else
  desc.description = "prefers nodes by name, ascending (reload test plugin)";
#endif
  desc.options = options;
  desc.option_count = sizeof options / sizeof options[0];
  desc.open = open_fn;
  desc.close = close_fn;
  desc.batch_node_order = batch_node_order;
  return &desc;
}
