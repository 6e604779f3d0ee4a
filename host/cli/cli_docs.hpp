// Man pages and bash completion written from the command line's own definition (the CLI11
// app of host/main.cpp), so that they list every subcommand and option exactly as the
// program parses them, and cannot fall behind it.
//
//   caldera manpages DIR        caldera.1 and caldera-SUB[-SUB].1 for every subcommand
//   caldera completion bash     a bash completion script on stdout
//
// `meson install` runs both at install time (host/meson.build).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

namespace caldera::cli {

// Writes the pages into `dir` (made when missing); 0, or 1 with the reason on stderr.
int write_man_pages(const CLI::App& app, const std::filesystem::path& dir,
                    const std::string& version);

// The bash completion script: subcommands by position, each one's options, and file names
// for options and arguments that take values.
std::string bash_completion(const CLI::App& app);

}  // namespace caldera::cli
