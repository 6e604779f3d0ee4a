/* What the C test plugins share: slots that answer the same thing every time and the start of
 * a descriptor. Test code only: the SDK's examples (plugins/contrib/) stay whole on purpose,
 * so that each reads alone as a model of a plugin. */
#ifndef CALDERA_TESTS_TEST_PLUGIN_H
#define CALDERA_TESTS_TEST_PLUGIN_H

#include <string.h>

#include "caldera/plugin.h"

/* What tp_open returns: a plugin whose open succeeds hands the host some non-NULL pointer. */
static int tp_self;

static inline void *tp_open(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  (void)s;
  (void)a;
  (void)code;
  (void)st;
  return &tp_self;
}

static inline void tp_close(void *self) { (void)self; }

/* Every node passes. */
static inline cal_code tp_predicate_pass(void *self, const cal_task *t, const cal_node *n,
                                         cal_status *st) {
  (void)self;
  (void)t;
  (void)n;
  (void)st;
  return CAL_SUCCESS;
}

/* Every node scores 1. */
static inline cal_code tp_score_one(void *self, const cal_task *t, const cal_node *n,
                                    double *score, cal_status *st) {
  (void)self;
  (void)t;
  (void)n;
  (void)st;
  *score = 1;
  return CAL_SUCCESS;
}

/* Clears `d` and fills what every descriptor has: its size, the ABI of this header, the name
 * and version, and tp_open / tp_close (a plugin with its own replaces them). */
static inline void tp_describe(cal_plugin *d, const char *name, const char *version) {
  memset(d, 0, sizeof *d);
  d->struct_size = sizeof *d;
  d->abi_version = CAL_ABI_VERSION;
  d->name = name;
  d->version = version;
  d->open = tp_open;
  d->close = tp_close;
}

#endif
