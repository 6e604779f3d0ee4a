// Tests of Args::validate (host/config/args.cpp): plugin and action arguments against a
// typed option table (plugin.h, cal_option).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/option_family.hpp"
#include "host/config/args.hpp"

namespace caldera {
namespace {

const std::vector<cal_option> kOptions = {
    {sizeof(cal_option), "binpack.weight", CAL_OPT_INT, "1", "score weight"},
    {sizeof(cal_option), "binpack.cpu", CAL_OPT_DOUBLE, "1", "cpu weight"},
    {sizeof(cal_option), "binpack.enabled", CAL_OPT_BOOL, "true", "on"},
    {sizeof(cal_option), "binpack.mode", CAL_OPT_STRING, "most", "mode"},
    {sizeof(cal_option), "sla-waiting-time", CAL_OPT_DURATION, "3m", "how long"},
    {sizeof(cal_option), "binpack.limit", CAL_OPT_INT, nullptr, "no default"},
    {sizeof(cal_option), "binpack.resources.*", CAL_OPT_INT, nullptr, "per resource"},
    {sizeof(cal_option), "binpack.resources.nvidia.*", CAL_OPT_DOUBLE, nullptr, "nvidia"},
};

ArgValue val(std::variant<bool, int64_t, double, std::string> v, int line = 7, int col = 12) {
  return ArgValue{std::move(v), SourceRef{"conf.toml", line, col}};
}

std::string error_of(const ArgMap& given, const std::vector<cal_option>& opts = kOptions) {
  try {
    Args::validate("tiers[1].plugins[0] (binpack)", opts, given);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Args, DefaultsAreFilledInTheirTypes) {
  Args a = Args::validate("plugin binpack", kOptions, {});
  EXPECT_EQ(a.values().size(), 5u);  // no default: neither binpack.limit nor the families
  EXPECT_EQ(a.get_int("binpack.weight"), 1);
  EXPECT_EQ(a.find("binpack.weight")->type, CAL_OPT_INT);
  EXPECT_DOUBLE_EQ(a.get_double("binpack.cpu"), 1.0);
  EXPECT_TRUE(std::holds_alternative<double>(a.find("binpack.cpu")->value));
  EXPECT_TRUE(a.get_bool("binpack.enabled"));
  EXPECT_EQ(a.get_string("binpack.mode"), "most");
  EXPECT_DOUBLE_EQ(a.get_double("sla-waiting-time"), 180.0);
  EXPECT_EQ(a.find("sla-waiting-time")->type, CAL_OPT_DURATION);
  EXPECT_FALSE(a.is_set("binpack.limit"));
  EXPECT_EQ(a.get_int("binpack.limit", -5), -5);
}

TEST(Args, GivenValuesOverrideDefaults) {
  Args a = Args::validate("plugin binpack", kOptions,
                          {{"binpack.weight", val(int64_t{10})},
                           {"binpack.cpu", val(int64_t{3})},  // DOUBLE accepts an integer
                           {"binpack.enabled", val(false)},
                           {"binpack.mode", val(std::string("least"))},
                           {"sla-waiting-time", val(std::string("1h30m"))},
                           {"binpack.limit", val(int64_t{4})}});
  EXPECT_EQ(a.get_int("binpack.weight"), 10);
  EXPECT_DOUBLE_EQ(a.get_double("binpack.cpu"), 3.0);
  EXPECT_FALSE(a.get_bool("binpack.enabled", true));
  EXPECT_EQ(a.get_string("binpack.mode"), "least");
  EXPECT_DOUBLE_EQ(a.get_double("sla-waiting-time"), 5400.0);
  EXPECT_EQ(a.get_int("binpack.limit"), 4);
  // An INT reads as a double too (arg_double of plugin.h).
  EXPECT_DOUBLE_EQ(a.get_double("binpack.weight"), 10.0);
  // Reading with the wrong getter gives the fallback, never a converted guess.
  EXPECT_EQ(a.get_string("binpack.weight", "fb"), "fb");
  EXPECT_EQ(a.get_bool("binpack.mode", true), true);
}

TEST(Args, DurationsAcceptNumbersOfSeconds) {
  Args a = Args::validate("p", kOptions, {{"sla-waiting-time", val(int64_t{30})}});
  EXPECT_DOUBLE_EQ(a.get_double("sla-waiting-time"), 30.0);
  a = Args::validate("p", kOptions, {{"sla-waiting-time", val(2.5)}});
  EXPECT_DOUBLE_EQ(a.get_double("sla-waiting-time"), 2.5);
  a = Args::validate("p", kOptions, {{"sla-waiting-time", val(std::string("500ms"))}});
  EXPECT_DOUBLE_EQ(a.get_double("sla-waiting-time"), 0.5);
}

TEST(Args, FamiliesAcceptTheirMembers) {
  Args a = Args::validate("p", kOptions,
                          {{"binpack.resources.example.com/foo", val(int64_t{2})},
                           {"binpack.resources.nvidia.com/gpu", val(1.5)}});
  EXPECT_EQ(a.get_int("binpack.resources.example.com/foo"), 2);
  // The most specific family decides the type (DOUBLE here, not the INT of the wider one).
  EXPECT_DOUBLE_EQ(a.get_double("binpack.resources.nvidia.com/gpu"), 1.5);
  EXPECT_EQ(a.find("binpack.resources.nvidia.com/gpu")->type, CAL_OPT_DOUBLE);
  // The family's bare prefix is not a member.
  EXPECT_NE(error_of({{"binpack.resources.", val(int64_t{1})}}).find("unknown argument"),
            std::string::npos);
}

// A "*" between two segments (ABI 1.2): the member sits between the prefix and the suffix
// and may hold dots; the suffix picks the family, so one prefix carries several types.
TEST(Args, FamiliesWithAStarInTheMiddle) {
  const std::vector<cal_option> opts = {
      {sizeof(cal_option), "resources.*.type", CAL_OPT_STRING, nullptr, ""},
      {sizeof(cal_option), "resources.*.weight", CAL_OPT_INT, nullptr, ""}};
  Args a = Args::validate("p", opts,
                          {{"resources.nvidia.com/gpu.type", val(std::string("MostAllocated"))},
                           {"resources.nvidia.com/gpu.weight", val(int64_t{2})},
                           {"resources.cpu.weight", val(int64_t{1})}});
  EXPECT_EQ(a.get_string("resources.nvidia.com/gpu.type"), "MostAllocated");
  EXPECT_EQ(a.get_int("resources.nvidia.com/gpu.weight"), 2);
  // The suffix decides the type: a weight that is a string is refused.
  EXPECT_THROW(Args::validate("p", opts, {{"resources.cpu.weight", val(std::string("2"))}}),
               InputError);
  // Nothing between prefix and suffix, or another suffix: not a member.
  EXPECT_THROW(Args::validate("p", opts, {{"resources..type", val(std::string("x"))}}),
               InputError);
  EXPECT_THROW(Args::validate("p", opts, {{"resources.cpu.kind", val(std::string("x"))}}),
               InputError);
  EXPECT_EQ(caldera::option_family::member("resources.*.weight", "resources.nvidia.com/gpu.weight"),
            std::optional<std::string_view>("nvidia.com/gpu"));
  EXPECT_EQ(caldera::option_family::key("resources.*.weight", "cpu"), "resources.cpu.weight");
  EXPECT_EQ(caldera::option_family::key("binpack.resources.*", "cpu"), "binpack.resources.cpu");
}

TEST(Args, UnknownArgumentListsTheDeclaredOnes) {
  EXPECT_EQ(error_of({{"binpack.wieght", val(int64_t{1}, 24, 32)}}),
            "conf.toml:24:32: tiers[1].plugins[0] (binpack): unknown argument 'binpack.wieght'; "
            "declared: binpack.weight, binpack.cpu, binpack.enabled, binpack.mode, "
            "sla-waiting-time, binpack.limit, binpack.resources.*, binpack.resources.nvidia.*");
  EXPECT_EQ(error_of({{"x", val(true)}}, {}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): unknown argument 'x'; it declares "
            "no arguments");
}

TEST(Args, WrongTypesNameTheArgumentAndWhatWasWritten) {
  EXPECT_EQ(error_of({{"binpack.weight", val(std::string("10"))}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.weight' expects an "
            "integer, got the string \"10\" (write it without quotes)");
  EXPECT_EQ(error_of({{"binpack.weight", val(1.5)}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.weight' expects an "
            "integer, got the float 1.5 (an integer has no fraction or exponent)");
  EXPECT_EQ(error_of({{"binpack.cpu", val(true)}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.cpu' expects a "
            "number, got the boolean true");
  EXPECT_EQ(error_of({{"binpack.enabled", val(std::string("true"))}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.enabled' expects "
            "a boolean, got the string \"true\" (write it without quotes)");
  EXPECT_EQ(error_of({{"binpack.enabled", val(int64_t{1})}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.enabled' expects "
            "a boolean, got the integer 1");
  EXPECT_EQ(error_of({{"binpack.mode", val(int64_t{1})}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'binpack.mode' expects a "
            "string, got the integer 1");
  EXPECT_EQ(error_of({{"sla-waiting-time", val(std::string("soon"))}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'sla-waiting-time' expects "
            "a duration, got the string \"soon\" (write e.g. \"500ms\", \"3m\", \"1h30m\" or a "
            "number of seconds)");
  EXPECT_EQ(error_of({{"sla-waiting-time", val(int64_t{-3})}}),
            "conf.toml:7:12: tiers[1].plugins[0] (binpack): argument 'sla-waiting-time' expects "
            "a duration, got the integer -3 (a duration is not negative)");
}

TEST(Args, MalformedDefaultIsThePluginsError) {
  std::vector<cal_option> opts = {{sizeof(cal_option), "n", CAL_OPT_INT, "ten", "bad default"}};
  EXPECT_EQ(error_of({}, opts),
            "tiers[1].plugins[0] (binpack): option 'n' declares the default 'ten', which is not "
            "an integer");
  opts = {{sizeof(cal_option), "d", CAL_OPT_DURATION, "later", ""}};
  EXPECT_NE(error_of({}, opts).find("which is not a duration"), std::string::npos);
  opts = {{sizeof(cal_option), "b", CAL_OPT_BOOL, "yes", ""}};
  EXPECT_NE(error_of({}, opts).find("which is not a boolean"), std::string::npos);
}

}  // namespace
}  // namespace caldera
