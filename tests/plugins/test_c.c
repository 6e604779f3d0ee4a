/* testc: a test plugin in plain C99 against caldera/plugin.h alone.
 *
 * It implements a few slots of different shapes (an order, a pre-predicate, a score, a
 * vote and a notification) and an option table with every type, a default of each and a
 * family, so that the loader's point detection and the option checks can be asserted. */
#include "test_plugin.h"

static const cal_host_api *host;

static const cal_option options[] = {
    {sizeof(cal_option), "testc.weight", CAL_OPT_INT, "2", "an integer weight"},
    {sizeof(cal_option), "testc.ratio", CAL_OPT_DOUBLE, "0.5", "a ratio"},
    {sizeof(cal_option), "testc.enabled", CAL_OPT_BOOL, "true", "a switch"},
    {sizeof(cal_option), "testc.mode", CAL_OPT_STRING, "fast", "a mode"},
    {sizeof(cal_option), "testc.wait", CAL_OPT_DURATION, "1m30s", "a waiting time"},
    {sizeof(cal_option), "testc.limit", CAL_OPT_INT, NULL, "unset unless given"},
    {sizeof(cal_option), "testc.resources.*", CAL_OPT_INT, NULL, "one weight per resource"},
};

static int job_order(void *self, const cal_job *l, const cal_job *r) {
  (void)self;
  return strcmp(host->job_name(l), host->job_name(r));
}

static cal_code pre_predicate(void *self, const cal_task *t, cal_status *st) {
  (void)self;
  (void)t;
  (void)st;
  return CAL_SUCCESS;
}

static void job_enqueued(void *self, const cal_job *j) {
  (void)self;
  (void)j;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  tp_describe(&desc, "testc", "1.2.3");
  desc.description = "test plugin written in C";
  desc.options = options;
  desc.option_count = sizeof options / sizeof options[0];
  desc.capabilities = CAL_CAP_NODE_PARALLEL;
  desc.job_order = job_order;
  desc.pre_predicate = pre_predicate;    /* counts as the "predicate" point */
  desc.node_order = tp_score_one;
  desc.job_enqueued = job_enqueued;      /* counts as the "job_enqueueable" point */
  return &desc;
}
