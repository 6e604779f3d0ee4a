/* faulty: plugins that pass the reload canary and fault later, in a supervised session
 * (tests/integration/reload/fault_test.py, docs/ISOLATION.md). Each build is one fault,
 * named by FAULTY_NAME; every one of them stays quiet until a session places a task of a
 * job named "boom..." (the test submits one after the canary has tried the plugin), then:
 *   FAULTY_SEGV     predicate writes through NULL on node n2       -> SIGSEGV
 *   FAULTY_ABORT    predicate calls abort()                        -> SIGABRT
 *   FAULTY_EXIT     predicate calls exit(0)                        -> exit status 0, no result
 *   FAULTY_HANG     node_order sleeps forever                      -> session_timeout
 *   FAULTY_ALLOC    predicate allocates and touches 2 GiB          -> session_memory_limit
 *   FAULTY_NAN      node_order scores NaN                          -> invalid output
 *   FAULTY_CODE     predicate returns 42                           -> invalid output
 *   FAULTY_REASON   predicate_many hands a wild reason pointer     -> SIGSEGV, named
 *   FAULTY_OPEN_EXIT open() calls exit(0) in every session         -> exit status 0
 *     (for the start-up case: it is configured from the start, so no set ever completed)
 * A build with none of these is quiet: FAULTY_NAME="faulty_segv" is the repaired build
 * that lifts faulty_segv's quarantine when it replaces the file. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../plugins/test_plugin.h"

static const cal_host_api *host;

static int boom(const cal_task *t) {
  const char *name = host->task_name(t);
  const char *slash = strchr(name, '/');
  return strncmp(slash ? slash + 1 : name, "boom", 4) == 0;
}

#if defined(FAULTY_SEGV) || defined(FAULTY_REASON)
/* The bad write or read is the point: under UndefinedBehaviorSanitizer (scripts/test
 * --sanitize) its null check would end the worker with a report instead of the signal. */
__attribute__((no_sanitize("null")))
#endif
static cal_code predicate(void *self, const cal_task *t, const cal_node *n, cal_status *st) {
  (void)self;
  (void)st;
  if (!boom(t)) return CAL_SUCCESS;
#if defined(FAULTY_SEGV)
  if (strcmp(host->node_name(n), "n2") == 0) {
    volatile int *p = NULL;
    *p = 42;
  }
#elif defined(FAULTY_ABORT)
  (void)n;
  abort();
#elif defined(FAULTY_EXIT)
  (void)n;
  exit(0);
#elif defined(FAULTY_ALLOC)
  (void)n;
  for (int i = 0; i < 64; ++i) {
    char *p = malloc((size_t)32 << 20);
    if (!p) abort(); /* what a careless plugin does with NULL */
    memset(p, 1, (size_t)32 << 20);
  }
#elif defined(FAULTY_CODE)
  (void)n;
  return (cal_code)42;
#else
  (void)n;
#endif
  return CAL_SUCCESS;
}

#if defined(FAULTY_REASON)
static void predicate_many(void *self, const cal_task *t, const cal_node *const *nodes,
                           size_t count, cal_code *codes, const char **reasons) {
  (void)self;
  (void)nodes;
  for (size_t i = 0; i < count; ++i) {
    codes[i] = boom(t) ? CAL_UNSCHEDULABLE : CAL_SUCCESS;
    reasons[i] = boom(t) ? (const char *)(uintptr_t)0x10 : NULL;
  }
}
#endif

static cal_code node_order(void *self, const cal_task *t, const cal_node *n, double *score,
                           cal_status *st) {
  (void)self;
  (void)n;
  (void)st;
  *score = 0;
  if (!boom(t)) return CAL_SUCCESS;
#if defined(FAULTY_HANG)
  for (;;) sleep(1);
#elif defined(FAULTY_NAN)
  *score = 0.0 / 0.0;
#endif
  return CAL_SUCCESS;
}

#if defined(FAULTY_OPEN_EXIT)
static void *open_exit(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  (void)s;
  (void)a;
  (void)code;
  (void)st;
  exit(0);
}
#endif

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  tp_describe(&desc, FAULTY_NAME, "0.0.1");
  desc.predicate = predicate;
  desc.node_order = node_order;
#if defined(FAULTY_REASON)
  desc.predicate_many = predicate_many;
#endif
#if defined(FAULTY_OPEN_EXIT)
  desc.open = open_exit;
#endif
  return &desc;
}
