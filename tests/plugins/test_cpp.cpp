// testcpp: a test plugin written with the C++ SDK (caldera/sdk.hpp), loaded side by side
// with the C one. It implements a batch score (testcpp.factor / 1.5 per node), a task order
// and a victim vote. Built a second time as testcpp_undeclared (TESTCPP_UNDECLARED), which
// reads an option it did not list in kOptions: its open() must fail, naming the option.
#include <vector>

#include "caldera/sdk.hpp"

namespace {

using namespace caldera::sdk;

struct TestCpp {
#ifdef TESTCPP_UNDECLARED
  static constexpr const char* kName = "testcpp_undeclared";
#else
  static constexpr const char* kName = "testcpp";
#endif
  static constexpr const char* kVersion = "0.9.0";
  static constexpr const char* kDescription = "test plugin written with the C++ SDK";
  static constexpr Hooks kHooks =
      hooks(Hook::task_order, Hook::batch_node_order, Hook::preemptable);
  static constexpr Double kFactor{"testcpp.factor", 1.5, "score factor"};
  static constexpr String kNameOption{"testcpp.name", no_default, "a name"};
  static constexpr auto kOptions = options(kFactor, kNameOption);

#ifdef TESTCPP_UNDECLARED
  static constexpr Int kForgotten{"testcpp.forgotten", 1, "not listed in kOptions"};
  TestCpp(Session, const Args& a) : factor_(a.get(kFactor) + a.get(kForgotten)) {}
#else
  TestCpp(Session, const Args& a) : factor_(a.get(kFactor)) {}
#endif
  int task_order(Task, Task) { return 0; }
  void batch_node_order(Task, const cal_node* const*, size_t n, double* scores) {
    for (size_t i = 0; i < n; ++i) scores[i] += factor_ / 1.5;
  }
  cal_vote preemptable(Task, const std::vector<Task>&, std::vector<uint8_t>&) {
    return CAL_ABSTAIN;
  }
  double factor_;
};

}  // namespace

CALDERA_PLUGIN(TestCpp)
