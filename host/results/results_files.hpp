// The results folder of a run (`caldera run --results DIR`): results.json, the CSV files
// (host/results/csv_writer.hpp) and report.html. Each file is written beside its final
// name and renamed over it, so a reader never sees half a file while --results-every
// rewrites them during the run.
#pragma once

#include <filesystem>

#include "host/results/run_results.hpp"

namespace caldera {

// Creates the folder if needed and checks that files can be written in it, before a long
// run rather than after. Throws InputError naming the folder and why.
void prepare_results_dir(const std::filesystem::path& dir);

// Writes every file. Throws InputError naming the file that could not be written.
void write_results(const std::filesystem::path& dir, const RunResults& r);

}  // namespace caldera
