/* A second plugin named "testc" (the first is tests/plugins/test_c.c), in a folder of its
 * own so that only the test that wants a duplicate scans both folders. */
#include <string.h>

#include "caldera/plugin.h"

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)h;
  (void)abi;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "testc";
  desc.version = "9.9.9";
  return &desc;
}
