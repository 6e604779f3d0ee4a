/* One source, several test plugins: each build sets one VARIANT_* macro to produce a
 * descriptor the loader must accept or refuse (see tests/plugins/meson.build).
 *   VARIANT_V1_0          a real 1.0 build: stamped 1.0, struct_size = sizeof(cal_plugin) as
 *                         the 1.0 header wrote it (the same 384 bytes: the 1.1 slots came
 *                         out of its reserved room), 1.0 slots only: accepted
 *   VARIANT_V1_0_SHORT    stamped 1.0, struct_size = CAL_PLUGIN_V1_0_SIZE (a descriptor
 *                         declared without the reserved room, the smallest accepted): accepted
 *   VARIANT_V1_0_SETS_1_1 stamped 1.0, full struct_size, and also sets the 1.1 slots
 *                         (predicate_many, node_order_many, hyper_node_order) with answers
 *                         that differ from its 1.0 slots: accepted, the 1.1 slots ignored
 *   VARIANT_V1_1_SETS_1_1 the same descriptor stamped 1.1 (the control: the host uses them)
 *   VARIANT_RESERVED      stamped 1.1 with reserved[2] non-zero: refused
 *   VARIANT_RESERVED_PAST reserved[0] non-zero but outside struct_size
 *                         (CAL_PLUGIN_V1_1_SIZE): accepted, the word is not the plugin's
 *   VARIANT_NO_OPEN       open and close NULL: refused
 *   VARIANT_NEWER_MINOR   ABI 1.9: refused (newer than the host)
 *   VARIANT_OTHER_MAJOR   ABI 2.0: refused
 *   VARIANT_NULL          the entry returns NULL: refused
 *   VARIANT_NO_NAME       empty name: refused
 *   VARIANT_BAD_OPTIONS   a family with a default: refused
 *   VARIANT_BAD_DEFAULT   an INT option whose default is "ten": refused
 *   VARIANT_SMALL         struct_size smaller than ABI 1.0's: refused
 *   VARIANT_CTOR_CRASH    a constructor that dies of SIGSEGV when the library is loaded:
 *                         refused with the signal, and only the inspecting child dies
 *   VARIANT_ENTRY_EXIT    an entry point that calls exit(0): refused, the same way
 *   VARIANT_CHECK_CRASH   a check_args that dies of SIGSEGV: the policy naming it is
 *                         refused with the signal (the check runs in a child)
 * With none of them it is a plain plugin of one slot (job_order), named VARIANT_NAME,
 * version VARIANT_VERSION: tests/plugins/dup builds it as a second "testc". */
#include "test_plugin.h"

#ifndef VARIANT_NAME
#define VARIANT_NAME "variant"
#endif
#ifndef VARIANT_VERSION
#define VARIANT_VERSION "0.0.1"
#endif

#define ABI_1_0 ((uint32_t)(1u << 16))
#define ABI_1_1 ((uint32_t)((1u << 16) | 1u))

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

#if defined(VARIANT_V1_0_SETS_1_1) || defined(VARIANT_V1_1_SETS_1_1)
/* The 1.1 slots: every node fails with a reason that says so, and scores 1000. */
static void predicate_many(void *self, const cal_task *t, const cal_node *const *nodes,
                           size_t n, cal_code *codes, const char **reasons) {
  size_t i;
  (void)self;
  (void)t;
  (void)nodes;
  for (i = 0; i < n; ++i) {
    codes[i] = CAL_UNSCHEDULABLE;
    reasons[i] = "the 1.1 slot predicate_many was called";
  }
}
static cal_code node_order_many(void *self, const cal_task *t, const cal_node *const *nodes,
                                size_t n, double *scores, cal_status *st) {
  size_t i;
  (void)self;
  (void)t;
  (void)nodes;
  (void)st;
  for (i = 0; i < n; ++i) scores[i] = 1000;
  return CAL_SUCCESS;
}
static cal_code hyper_node_order(void *self, const cal_job *j, const cal_hypernode *const *h,
                                 size_t n, double *scores, cal_status *st) {
  (void)self;
  (void)j;
  (void)h;
  (void)n;
  (void)scores;
  (void)st;
  return CAL_SUCCESS;
}
#endif

#if defined(VARIANT_CTOR_CRASH)
#include <signal.h>
__attribute__((constructor)) static void crash_on_load(void) { raise(SIGSEGV); }
#elif defined(VARIANT_ENTRY_EXIT)
#include <stdlib.h>
#elif defined(VARIANT_CHECK_CRASH)
#include <signal.h>
static cal_code check_crash(const cal_args *args, cal_status *st) {
  (void)args;
  (void)st;
  raise(SIGSEGV);
  return CAL_SUCCESS;
}
#endif

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)h;
  (void)abi;
  tp_describe(&desc, VARIANT_NAME, VARIANT_VERSION);
  desc.job_order = job_order;
#if defined(VARIANT_V1_0)
  desc.abi_version = ABI_1_0;
#elif defined(VARIANT_V1_0_SHORT)
  desc.abi_version = ABI_1_0;
  desc.struct_size = (uint32_t)CAL_PLUGIN_V1_0_SIZE;
#elif defined(VARIANT_V1_0_SETS_1_1) || defined(VARIANT_V1_1_SETS_1_1)
#if defined(VARIANT_V1_0_SETS_1_1)
  desc.abi_version = ABI_1_0;
#else
  desc.abi_version = ABI_1_1;
#endif
  /* The 1.0 slots: every node passes and scores 1. */
  desc.predicate = tp_predicate_pass;
  desc.node_order = tp_score_one;
  desc.predicate_many = predicate_many;
  desc.node_order_many = node_order_many;
  desc.hyper_node_order = hyper_node_order;
#elif defined(VARIANT_RESERVED)
  desc.abi_version = ABI_1_1;
  desc.reserved[2] = &desc;
#elif defined(VARIANT_RESERVED_PAST)
  desc.abi_version = ABI_1_1;
  desc.struct_size = (uint32_t)CAL_PLUGIN_V1_1_SIZE;
  desc.reserved[0] = &desc;
#elif defined(VARIANT_NO_OPEN)
  desc.open = NULL;
  desc.close = NULL;
#elif defined(VARIANT_NEWER_MINOR)
  desc.abi_version = (1u << 16) | 9u;
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
#elif defined(VARIANT_ENTRY_EXIT)
  exit(0);
#elif defined(VARIANT_CHECK_CRASH)
  desc.check_args = check_crash;
#endif
  return &desc;
}
