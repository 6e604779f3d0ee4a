/* A second plugin named "testc" (the first is tests/plugins/test_c.c), in a folder of its
 * own so that only the test that wants a duplicate scans both folders. */
#include <string.h>

#include "caldera/plugin.h"

static int state;

static void *open_fn(cal_session *s, const cal_args *a, cal_code *code, cal_status *st) {
  (void)s;
  (void)a;
  (void)code;
  (void)st;
  return &state;
}

static void close_fn(void *self) { (void)self; }

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)h;
  (void)abi;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "testc";
  desc.version = "9.9.9";
  desc.open = open_fn;
  desc.close = close_fn;
  return &desc;
}
