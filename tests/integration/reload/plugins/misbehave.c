/* misbehave: plugins that load cleanly but fail in a reload's trial session
 * (tests/integration/). One source, one failure per build, all of them at open(), which
 * every session calls whatever the cluster holds, so the trial always reaches them:
 *   MISBEHAVE_ABORT  open() calls abort()               -> the trial worker dies of SIGABRT
 *   MISBEHAVE_SEGV   open() writes through NULL          -> the trial worker dies of SIGSEGV
 *   MISBEHAVE_HANG   open() sleeps forever               -> the trial hits canary_timeout
 *   MISBEHAVE_ERROR  open() returns CAL_ERROR, a reason  -> an error-level plugin log line
 * The plugin name is the build's name (MISBEHAVE_NAME), so several can sit in one folder. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caldera/plugin.h"

static const cal_host_api *host;

#if defined(MISBEHAVE_SEGV)
/* The write through NULL is the point: under UndefinedBehaviorSanitizer (scripts/test
 * --sanitize) its null check would end the child with a report instead of the SIGSEGV
 * the trial must see, so that one check is off here. */
__attribute__((no_sanitize("null")))
#endif
static void *open_fn(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  (void)s;
  (void)a;
  (void)code;
  (void)st;
#if defined(MISBEHAVE_ABORT)
  abort();
#elif defined(MISBEHAVE_SEGV)
  volatile int *p = NULL;
  *p = 42;
#elif defined(MISBEHAVE_HANG)
  for (;;) sleep(1);
#elif defined(MISBEHAVE_ERROR)
  *code = CAL_ERROR;
  host->status_set(st, "misbehave_error: cannot reach its (imaginary) license server");
#endif
  return NULL;
}

static void close_fn(void *self) { (void)self; }

static int job_order(void *self, const cal_job *l, const cal_job *r) {
  (void)self;
  (void)l;
  (void)r;
  return 0;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = MISBEHAVE_NAME;
  desc.version = "0.0.1";
  desc.description = "fails in its session open (reload test plugin)";
  desc.open = open_fn;
  desc.close = close_fn;
  desc.job_order = job_order;
  return &desc;
}
