// `caldera new-plugin`: what it refuses (a name that cannot name a plugin, a folder that
// holds something) writes nothing; what it writes is a whole folder. Building the folders
// against the installed SDK is tests/install_sdk_test.sh's part.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/cli/commands.hpp"

namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("caldera-new-plugin-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(NewPlugin, RefusesBadNamesAndFullFolders) {
  TempDir tmp;
  for (const char* bad : {"", "Idle", "9lives", "idle cpu", "idle/cpu", "idle.cpu"})
    EXPECT_EQ(caldera::cli::new_plugin(bad, "c", tmp.path / "x"), 2) << bad;
  EXPECT_FALSE(fs::exists(tmp.path / "x"));
  std::ofstream(tmp.path / "keep.txt") << "mine\n";
  EXPECT_EQ(caldera::cli::new_plugin("idle", "c", tmp.path), 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator{}), 1);
}

TEST(NewPlugin, WritesAWholeFolderPerLanguage) {
  TempDir tmp;
  ASSERT_EQ(caldera::cli::new_plugin("idle-cpu", "c", tmp.path / "c"), 0);
  ASSERT_EQ(caldera::cli::new_plugin("idle-cpu", "cpp", tmp.path / "cpp"), 0);
  for (const char* f : {"README.md", "Makefile", "idle-cpu.c",
                        "scenarios/idle-cpu-prefers-idle-nodes.toml"})
    EXPECT_TRUE(fs::exists(tmp.path / "c" / f)) << f;
  EXPECT_TRUE(fs::exists(tmp.path / "cpp" / "idle-cpu.cpp"));
  std::ifstream mk(tmp.path / "cpp" / "Makefile");
  const std::string makefile((std::istreambuf_iterator<char>(mk)), std::istreambuf_iterator<char>());
  EXPECT_NE(makefile.find("$(CXX) -Wall"), std::string::npos);
  EXPECT_NE(makefile.find("--cflags caldera-sdk-cpp) -o $@ idle-cpu.cpp"), std::string::npos);
  EXPECT_EQ(makefile.find('@' + std::string("CXX@")), std::string::npos);  // all filled in
  std::ifstream src(tmp.path / "c" / "idle-cpu.c");
  const std::string c((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
  EXPECT_NE(c.find("static void *idle_cpu_open("), std::string::npos);  // a C identifier
  EXPECT_NE(c.find("desc.name = \"idle-cpu\";"), std::string::npos);
}

}  // namespace
