// testcpp: a test plugin written with the C++ SDK (caldera/sdk.hpp), loaded side by side
// with the C one. It implements a batch score, a task order and a victim vote.
#include <vector>

#include "caldera/sdk.hpp"

namespace {

using namespace caldera::sdk;

struct TestCpp {
  static constexpr const char* kName = "testcpp";
  static constexpr const char* kVersion = "0.9.0";
  static constexpr const char* kDescription = "test plugin written with the C++ SDK";
  static std::vector<cal_option> options() {
    return {option("testcpp.factor", CAL_OPT_DOUBLE, "1.5", "score factor"),
            option("testcpp.name", CAL_OPT_STRING, nullptr, "a name")};
  }
  TestCpp(Session, const Args&) {}
  int task_order(Task, Task) { return 0; }
  void batch_node_order(Task, const cal_node* const*, size_t n, double* scores) {
    for (size_t i = 0; i < n; ++i) scores[i] += 1;
  }
  cal_vote preemptable(Task, const std::vector<Task>&, std::vector<uint8_t>&) {
    return CAL_ABSTAIN;
  }
};

}  // namespace

CALDERA_PLUGIN(TestCpp)
