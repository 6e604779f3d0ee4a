/* A plugin that calls a function no library provides. Linked with undefined symbols
 * allowed, it is a valid shared object that dlopen(RTLD_NOW) must refuse at load time. */
#include <string.h>

#include "caldera/plugin.h"

extern int caldera_test_missing_symbol(void);

static int job_order(void *self, const cal_job *l, const cal_job *r) {
  (void)self;
  (void)l;
  (void)r;
  return caldera_test_missing_symbol();
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)h;
  (void)abi;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "unresolved";
  desc.job_order = job_order;
  return &desc;
}
