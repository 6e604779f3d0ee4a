/* What tests/unit/abi_freeze_c.c (C99) reports to tests/unit/abi_freeze_test.cpp. */
#ifndef CALDERA_TESTS_ABI_FREEZE_C_H
#define CALDERA_TESTS_ABI_FREEZE_C_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One member; from abi_c_struct_sizes, one struct: offset holds its sizeof, size is 0. */
typedef struct abi_c_member {
  const char *strct;
  const char *member;
  size_t offset;
  size_t size;
} abi_c_member;

const abi_c_member *abi_c_members(size_t *n);
const abi_c_member *abi_c_struct_sizes(size_t *n);

#ifdef __cplusplus
}
#endif

#endif
