/* One source, several test plugins: each build sets one VARIANT_* macro to produce a
 * descriptor the loader must accept or refuse (see tests/plugins/meson.build).
 *   VARIANT_OLD_SIZE     struct_size == CAL_PLUGIN_V1_0_SIZE (a plugin from before any
 *                        appended slot): accepted
 *   VARIANT_NEWER_MINOR  ABI 1.7: refused (newer than the host)
 *   VARIANT_OTHER_MAJOR  ABI 2.0: refused
 *   VARIANT_NULL         the entry returns NULL: refused
 *   VARIANT_NO_NAME      empty name: refused
 *   VARIANT_BAD_OPTIONS  a family with a default: refused
 *   VARIANT_BAD_DEFAULT  an INT option whose default is "ten": refused
 *   VARIANT_SMALL        struct_size smaller than ABI 1.0's: refused */
#include <string.h>

#include "caldera/plugin.h"

#ifndef VARIANT_NAME
#define VARIANT_NAME "variant"
#endif

#if defined(VARIANT_BAD_OPTIONS)
static const cal_option bad_options[] = {
    {sizeof(cal_option), "x.*", CAL_OPT_INT, "1", "a family with a default"},
};
#elif defined(VARIANT_BAD_DEFAULT)
static const cal_option bad_default[] = {
    {sizeof(cal_option), "x.count", CAL_OPT_INT, "ten", "not an integer"},
};
#endif

static int job_order(void *self, const cal_job *l, const cal_job *r) {
  (void)self;
  (void)l;
  (void)r;
  return 0;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)h;
  (void)abi;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = VARIANT_NAME;
  desc.version = "0.0.1";
  desc.job_order = job_order;
#if defined(VARIANT_OLD_SIZE)
  desc.struct_size = (uint32_t)CAL_PLUGIN_V1_0_SIZE;
#elif defined(VARIANT_NEWER_MINOR)
  desc.abi_version = (1u << 16) | 7u;
#elif defined(VARIANT_OTHER_MAJOR)
  desc.abi_version = 2u << 16;
#elif defined(VARIANT_NULL)
  return NULL;
#elif defined(VARIANT_NO_NAME)
  desc.name = "";
#elif defined(VARIANT_BAD_OPTIONS)
  desc.options = bad_options;
  desc.option_count = 1;
#elif defined(VARIANT_BAD_DEFAULT)
  desc.options = bad_default;
  desc.option_count = 1;
#elif defined(VARIANT_SMALL)
  desc.struct_size = 16;
#endif
  return &desc;
}
