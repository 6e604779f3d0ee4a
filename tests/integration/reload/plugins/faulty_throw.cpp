// faulty_throw: a C++ plugin built without the SDK whose predicate lets a C++ exception
// out through the C ABI once a task of a "boom..." job is placed (see faulty.c).
#include <cstring>
#include <stdexcept>

#include "../../../plugins/test_plugin.h"

namespace {
const cal_host_api* host;
cal_plugin desc;

cal_code predicate(void*, const cal_task* t, const cal_node*, cal_status*) {
  const char* name = host->task_name(t);
  const char* slash = std::strchr(name, '/');
  if (std::strncmp(slash ? slash + 1 : name, "boom", 4) == 0)
    throw std::runtime_error("license check failed");  // the contract says never
  return CAL_SUCCESS;
}
}  // namespace

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  tp_describe(&desc, "faulty_throw", "0.0.1");
  desc.predicate = predicate;
  return &desc;
}
