// Kubernetes quantity syntax and Volcano's units (host/model/quantity.cpp). Expected values
// follow k8s.io/apimachinery resource.Quantity: Value() and MilliValue() round fractions
// up, away from zero.
#include "host/model/quantity.hpp"

#include <gtest/gtest.h>

using caldera::format_amount;
using caldera::parse_quantity;
using caldera::resource_amount;

namespace {

double amount(const std::string& res, const std::string& text) {
  auto v = resource_amount(res, text);
  EXPECT_TRUE(v.has_value()) << res << " = " << text;
  return v.value_or(-12345);
}

}  // namespace

TEST(Quantity, PlainNumbers) {
  EXPECT_EQ(parse_quantity("2"), 2.0);
  EXPECT_EQ(parse_quantity("0"), 0.0);
  EXPECT_EQ(parse_quantity("+3"), 3.0);
  EXPECT_EQ(parse_quantity("-3"), -3.0);
  EXPECT_EQ(parse_quantity("0.5"), 0.5);
  EXPECT_EQ(parse_quantity(".5"), 0.5);
  EXPECT_EQ(parse_quantity("1."), 1.0);  // Go accepts "1." too
  EXPECT_EQ(parse_quantity("007"), 7.0);
}

TEST(Quantity, DecimalSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_quantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_quantity("3n"), 3e-9);
  EXPECT_DOUBLE_EQ(*parse_quantity("7u"), 7e-6);
  EXPECT_EQ(parse_quantity("2k"), 2000.0);
  EXPECT_EQ(parse_quantity("1M"), 1e6);
  EXPECT_EQ(parse_quantity("1G"), 1e9);
  EXPECT_EQ(parse_quantity("1T"), 1e12);
  EXPECT_EQ(parse_quantity("1P"), 1e15);
  EXPECT_EQ(parse_quantity("1E"), 1e18);  // E alone is exa, not an exponent
}

TEST(Quantity, BinarySuffixes) {
  EXPECT_EQ(parse_quantity("1Ki"), 1024.0);
  EXPECT_EQ(parse_quantity("512Mi"), 512.0 * 1048576);
  EXPECT_EQ(parse_quantity("4Gi"), 4294967296.0);
  EXPECT_EQ(parse_quantity("1Ti"), 1099511627776.0);
  EXPECT_EQ(parse_quantity("1Pi"), 1125899906842624.0);
  EXPECT_EQ(parse_quantity("2Ei"), 2305843009213693952.0);
  EXPECT_EQ(parse_quantity("1.5Gi"), 1610612736.0);
}

TEST(Quantity, Exponents) {
  EXPECT_EQ(parse_quantity("1e3"), 1000.0);
  EXPECT_EQ(parse_quantity("1E3"), 1000.0);
  EXPECT_EQ(parse_quantity("1e+3"), 1000.0);
  EXPECT_DOUBLE_EQ(*parse_quantity("5e-3"), 0.005);
  EXPECT_EQ(parse_quantity("1.5e2"), 150.0);
}

TEST(Quantity, Garbage) {
  for (const char* bad : {"", "m", "Gi", ".", "-", "+", "4GB", "1.2.3", "1e", "1e+", "e3", "1 ",
                          " 1", "1mi", "1KI", "1ki", "abc", "1,5", "0x10", "1i", "--1", "1e3.5",
                          "5 Gi"}) {
    EXPECT_FALSE(parse_quantity(bad).has_value()) << '"' << bad << '"';
    EXPECT_FALSE(resource_amount("memory", bad).has_value()) << '"' << bad << '"';
  }
}

TEST(Quantity, CpuInMillicores) {
  EXPECT_EQ(amount("cpu", "2"), 2000);
  EXPECT_EQ(amount("cpu", "500m"), 500);
  EXPECT_EQ(amount("cpu", "0.1"), 100);
  EXPECT_EQ(amount("cpu", "1.1"), 1100);  // exact: no 1100.0000000000002 rounding up
  EXPECT_EQ(amount("cpu", "0.1m"), 1);    // MilliValue rounds a fraction up
  EXPECT_EQ(amount("cpu", "1n"), 1);
  EXPECT_EQ(amount("cpu", "1500u"), 2);
  EXPECT_EQ(amount("cpu", "1e3"), 1000000);
  EXPECT_EQ(amount("cpu", "-1.5m"), -2);  // away from zero, as inf.RoundUp
}

TEST(Quantity, MemoryInBytes) {
  EXPECT_EQ(amount("memory", "4Gi"), 4294967296.0);
  EXPECT_EQ(amount("memory", "1G"), 1e9);
  EXPECT_EQ(amount("memory", "1073741824"), 1073741824.0);
  EXPECT_EQ(amount("memory", "0.5"), 1);      // Value() rounds up
  EXPECT_EQ(amount("memory", "1500m"), 2);    // 1.5 bytes -> 2
  EXPECT_EQ(amount("memory", "0.1Ki"), 103);  // 102.4 -> 103
  EXPECT_EQ(amount("memory", "0G"), 0);
  EXPECT_EQ(amount("memory", "1e9"), 1e9);
}

TEST(Quantity, PodsAsCountScalarsInMilli) {
  EXPECT_EQ(amount("pods", "110"), 110);
  EXPECT_EQ(amount("pods", "1k"), 1000);
  EXPECT_EQ(amount("nvidia.com/gpu", "1"), 1000);
  EXPECT_EQ(amount("nvidia.com/gpu", "250m"), 250);
  EXPECT_EQ(amount("volcano.sh/gpu-memory", "1024"), 1024000);
  EXPECT_EQ(amount("ephemeral-storage", "1Ki"), 1024000);
}

TEST(Quantity, FormatAmount) {
  EXPECT_EQ(format_amount("cpu", 1500), "1500m");
  EXPECT_EQ(format_amount("cpu", 2000), "2");
  EXPECT_EQ(format_amount("cpu", 0), "0");
  EXPECT_EQ(format_amount("memory", 4294967296.0), "4Gi");
  EXPECT_EQ(format_amount("memory", 1e9), "1G");
  EXPECT_EQ(format_amount("memory", 1536.0 * 1048576), "1536Mi");
  EXPECT_EQ(format_amount("memory", 1001), "1001");
  EXPECT_EQ(format_amount("pods", 10), "10");
  EXPECT_EQ(format_amount("nvidia.com/gpu", 2000), "2");
  EXPECT_EQ(format_amount("nvidia.com/gpu", 500), "500m");
}
