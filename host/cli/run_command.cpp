// placeholder: replaced by the embedded-cluster run loop (being written)
#include "host/cli/commands.hpp"
#include <cstdio>
namespace caldera::cli {
int run(const Common&, const RunOptions&) { std::fprintf(stderr, "run: not built yet\n"); return 2; }
}
