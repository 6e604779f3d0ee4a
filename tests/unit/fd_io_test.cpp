// write_file_atomic (host/util/fd_io.hpp): files the scheduler writes (status, results) are
// replaced whole and never through something planted under the temporary name.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "host/util/fd_io.hpp"
#include "tests/unit/test_support.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path tmp_name(const fs::path& p) {
  fs::path t = p;
  t += ".tmp" + std::to_string(::getpid());
  return t;
}

TEST(WriteFileAtomic, ReplacesTheFileWhole) {
  caldera::testing::ScratchDir dir("fd-io");
  const fs::path p = dir.path() / "status.json";
  std::string why;
  ASSERT_TRUE(caldera::write_file_atomic(p, "one", 0644, &why)) << why;
  ASSERT_TRUE(caldera::write_file_atomic(p, "two", 0644, &why)) << why;
  EXPECT_EQ(read(p), "two");
  EXPECT_FALSE(fs::exists(tmp_name(p)));
}

TEST(WriteFileAtomic, APlantedLinkIsNotFollowed) {
  caldera::testing::ScratchDir dir("fd-io");
  const fs::path victim = dir.write("victim", "keep me");
  const fs::path p = dir.path() / "status.json";
  fs::create_symlink(victim, tmp_name(p));
  std::string why;
  ASSERT_TRUE(caldera::write_file_atomic(p, "status", 0644, &why)) << why;
  EXPECT_EQ(read(victim), "keep me");
  EXPECT_EQ(read(p), "status");
  EXPECT_FALSE(fs::is_symlink(p));
}

TEST(WriteFileAtomic, APlantedFifoDoesNotBlock) {
  caldera::testing::ScratchDir dir("fd-io");
  const fs::path p = dir.path() / "results.json";
  ASSERT_EQ(::mkfifo(tmp_name(p).c_str(), 0600), 0);
  std::string why;
  ASSERT_TRUE(caldera::write_file_atomic(p, "{}", 0644, &why)) << why;
  EXPECT_EQ(read(p), "{}");
  EXPECT_TRUE(fs::is_regular_file(p));
}

TEST(WriteFileAtomic, SaysWhyItCannot) {
  std::string why;
  EXPECT_FALSE(caldera::write_file_atomic("/nonexistent-folder/status.json", "x", 0644, &why));
  EXPECT_EQ(why.rfind("/nonexistent-folder/status.json.tmp", 0), 0u) << why;
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
}

}  // namespace
