// The progress line's text (host/util/progress.hpp): done / total, rate and time left.
#include <gtest/gtest.h>

#include "host/util/progress.hpp"

namespace caldera {
namespace {

TEST(ProgressTest, DoneTotalRateAndTimeLeft) {
  EXPECT_EQ(Progress::format(250, 1000, "pods", 2.0, ""), "  250/1000 pods  125/s  6s left");
  EXPECT_EQ(Progress::format(3, 7, "jobs finished", 0.5, "t=340s"),
            "  3/7 jobs finished  6/s  1s left  t=340s");
  // Done: no time left; nothing done yet: no estimate.
  EXPECT_EQ(Progress::format(1000, 1000, "pods", 4.0, ""), "  1000/1000 pods  250/s");
  EXPECT_EQ(Progress::format(0, 10, "pods", 1.0, ""), "  0/10 pods  0/s");
}

TEST(ProgressTest, DisabledWritesNothing) {
  testing::internal::CaptureStderr();
  {
    Progress p("pods", false);
    p.update(1, 2);
    p.finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressTest, EnabledDrawsInPlaceAndEndsWithANewline) {
  testing::internal::CaptureStderr();
  {
    Progress p("pods", true);
    p.update(1, 2);
    p.update(2, 2);  // within 125 ms: kept for finish()
    p.finish();
  }
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.rfind("\r\033[K  2/2 pods", std::string::npos) != std::string::npos, true) << out;
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find("\r\033[K  1/2 pods"), 0u) << out;
}

}  // namespace
}  // namespace caldera
