/* counter: a test plugin in plain C99 for the state kept across sessions (ABI 1.2,
 * state_get / state_put; tests/unit/plugin_state_test.cpp). Kept in a folder of its own so
 * that scans of tests/plugins never see it.
 *
 * Its state is one uint32_t: the number of sessions it has opened in (the previous count
 * + 1, saved at close). At close it tells every job "session N" (job_set_pending_reason),
 * which is how a test reads the count. Options make it misbehave on purpose:
 *   counter.fail    open() saves a state, then fails
 *   counter.big     close() tries to save CAL_STATE_MAX + 1 bytes (refused), nothing else
 *   counter.clear   close() saves 0 bytes (no state)
 *   counter.late    job_order() tries state_get / state_put (refused outside open/close) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_plugin.h"

static const cal_host_api *host;

static const cal_option options[] = {
    {sizeof(cal_option), "counter.fail", CAL_OPT_BOOL, "false", "open() saves, then fails"},
    {sizeof(cal_option), "counter.big", CAL_OPT_BOOL, "false", "close() saves too much"},
    {sizeof(cal_option), "counter.clear", CAL_OPT_BOOL, "false", "close() saves no state"},
    {sizeof(cal_option), "counter.late", CAL_OPT_BOOL, "false", "job_order() tries the state"},
};

typedef struct counter {
  cal_session *s;
  uint32_t count;
  int big, clear, late;
  int late_get_null, late_put_refused; /* what the calls from job_order returned */
} counter;

static void *open_fn(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  size_t size = 1234;
  const void *saved = host->state_get(s, &size);
  uint32_t before = 0;
  counter *c;
  if (saved && size == sizeof before) memcpy(&before, saved, sizeof before);
  if (!saved && size != 0) return NULL; /* the contract: no state reads size 0 */
  if (host->arg_bool(a, "counter.fail")) {
    uint32_t junk = 999;
    host->state_put(s, &junk, sizeof junk);
    *code = CAL_ERROR;
    host->status_set(st, "told to fail");
    return NULL;
  }
  c = (counter *)calloc(1, sizeof *c);
  if (!c) {
    *code = CAL_ERROR;
    host->status_set(st, "out of memory");
    return NULL;
  }
  c->s = s;
  c->count = before + 1;
  c->big = host->arg_bool(a, "counter.big");
  c->clear = host->arg_bool(a, "counter.clear");
  c->late = host->arg_bool(a, "counter.late");
  return c;
}

static void close_fn(void *self) {
  counter *c = (counter *)self;
  char text[96];
  size_t i, n = host->job_count(c->s);
  if (c->big) {
    size_t too_many = CAL_STATE_MAX + 1;
    char *bytes = (char *)calloc(too_many, 1);
    int rc = bytes ? host->state_put(c->s, bytes, too_many) : 0;
    free(bytes);
    snprintf(text, sizeof text, "session %u, big put %d", (unsigned)c->count, rc);
  } else if (c->clear) {
    int rc = host->state_put(c->s, NULL, 0);
    snprintf(text, sizeof text, "session %u, cleared %d", (unsigned)c->count, rc);
  } else {
    int rc = host->state_put(c->s, &c->count, sizeof c->count);
    if (c->late)
      snprintf(text, sizeof text, "session %u, put %d, late get %s, late put %s",
               (unsigned)c->count, rc, c->late_get_null ? "null" : "not null",
               c->late_put_refused ? "refused" : "taken");
    else
      snprintf(text, sizeof text, "session %u, put %d", (unsigned)c->count, rc);
  }
  for (i = 0; i < n; ++i) host->job_set_pending_reason(host->job_at(c->s, i), "counter", text);
  free(c);
}

static int job_order(void *self, const cal_job *l, const cal_job *r) {
  counter *c = (counter *)self;
  (void)l;
  (void)r;
  if (c && c->late) {
    size_t size = 0;
    uint32_t v = 7;
    c->late_get_null = host->state_get(c->s, &size) == NULL && size == 0;
    c->late_put_refused = host->state_put(c->s, &v, sizeof v) == -1;
  }
  return 0;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  if (!CAL_HOST_HAS(h, state_put)) return NULL; /* needs a 1.2 host */
  tp_describe(&desc, "counter", "0.0.1");
  desc.description = "counts its sessions in its state (a test of state_get / state_put)";
  desc.options = options;
  desc.option_count = sizeof options / sizeof options[0];
  desc.open = open_fn;
  desc.close = close_fn;
  desc.job_order = job_order;
  return &desc;
}
