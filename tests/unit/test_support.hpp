// Small things many unit tests need: a scratch folder per test, the message of the input
// error a call throws, a substring check. One copy here, not one per test file.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host/util/input_error.hpp"

namespace caldera::testing {

// A fresh, private folder under the system's temporary one (mkdtemp), removed with all it
// holds when the test ends. `what` names it, so a folder a crashed test left is recognisable.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view what) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / ("caldera-" + std::string(what) + "-XXXXXX"))
            .string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to `name` (a path relative to the folder; its folders are made).
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// The message of the InputError `f` throws, or "" when it throws none.
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace caldera::testing
