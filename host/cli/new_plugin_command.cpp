// `caldera new-plugin NAME [--lang c|cpp] [--dir DIR]`: a plugin folder that builds against
// the installed SDK alone (a Makefile with one pkg-config line), a working score to start
// from, and a scenario file that checks its decision (`make check`). The plugin: NAME
// prefers the nodes with the most idle cpu, 0..100 times NAME.weight (plugin.h's score
// scale), so that the scenario's pod goes to the emptier of two nodes.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "host/cli/commands.hpp"

namespace caldera::cli {

namespace fs = std::filesystem;

namespace {

// The body of each file, with @NAME@ (the plugin's name), @IDENT@ (a C identifier) and
// @CLASS@ (a C++ class name) replaced.
constexpr const char* kReadme = R"TEXT(# @NAME@

A Caldera scheduler plugin, built against the installed SDK alone (`caldera new-plugin`).
It prefers the nodes with the most idle cpu: 100 times the node's idle share of its
allocatable cpu, times `@NAME@.weight` (default 1), added to the other plugins' scores.

    make                 # needs caldera-sdk on PKG_CONFIG_PATH (pkg-config)
    make check           # runs the scenario in scenarios/ with this folder's plugin
    make install         # into the plugin folder the SDK names (pkg-config plugindir)

Then name it in a tier of the scheduler config:

    [[tiers.plugins]]
    name = "@NAME@"
    arguments = { "@NAME@.weight" = 1 }

The C ABI and its rules (ownership, threads, the score scale): caldera/plugin.h. The C++
layer: caldera/sdk.hpp. Scenario files: SCENARIOS.md section 2.
)TEXT";

// One Makefile for both languages: @CXX@ / @FLAGS@ / @STD@ / @PC@ / @SRC@ say which.
constexpr const char* kMakefile = R"TEXT(# Builds @NAME@.so against the installed Caldera SDK only (@PC@.pc).
# For an SDK staged with `meson install --destdir`, point pkg-config at the staged prefix:
#   make PKG_CONFIG="pkg-config --define-variable=prefix=/staging/usr/local"
PKG_CONFIG ?= pkg-config
@CXX@ ?= @CXXCMD@
@FLAGS@ ?= -O2 -g
CALDERA ?= caldera
PLUGINDIR ?= $(shell $(PKG_CONFIG) --variable=plugindir caldera-sdk)

all: @NAME@.so

# Hidden visibility: the plugin's entry point is its only exported symbol.
@NAME@.so: @SRC@
	$(@CXX@) @STD@-Wall -Wextra -fPIC -fvisibility=hidden -shared $(@FLAGS@) $(shell $(PKG_CONFIG) --cflags @PC@) -o $@ @SRC@

check: @NAME@.so
	$(CALDERA) --plugin-dir $(PLUGINDIR) --plugin-dir . scenario run scenarios/*.toml

install: @NAME@.so
	install -d $(DESTDIR)$(PLUGINDIR)
	install -m 0755 @NAME@.so $(DESTDIR)$(PLUGINDIR)/@NAME@.so

clean:
	rm -f @NAME@.so

.PHONY: all check install clean
)TEXT";

constexpr const char* kSourceC = R"TEXT(/*
 * @NAME@: prefers the nodes with the most idle cpu.
 *
 * Score (plugin.h, "The score scale"): 100 * idle cpu / allocatable cpu, times
 * @NAME@.weight; the host adds every plugin's score and takes the highest total.
 * Reads only, so the host may call it on several nodes at once (CAL_CAP_NODE_PARALLEL).
 */
#include <stdlib.h>
#include <string.h>

#include "caldera/plugin.h"

static const cal_host_api *host;

static const cal_option options[] = {
    {sizeof(cal_option), "@NAME@.weight", CAL_OPT_INT, "1",
     "weight of the idle-cpu score (0 turns it off)"},
};

/* One session's state (the plugin's `self`): the weight, read once. */
typedef struct @IDENT@_state {
  double weight;
} @IDENT@_state;

static void *@IDENT@_open(cal_session *s, const cal_args *args, cal_code *code, cal_status *st) {
  @IDENT@_state *self = (@IDENT@_state *)malloc(sizeof *self);
  (void)s;
  if (!self) {
    *code = CAL_ERROR;
    host->status_set(st, "@NAME@: out of memory");
    return NULL;
  }
  self->weight = (double)host->arg_int(args, "@NAME@.weight");
  return self;
}

static void @IDENT@_close(void *self) { free(self); }

static cal_code @IDENT@_node_order(void *self, const cal_task *t, const cal_node *n, double *score,
                                   cal_status *st) {
  const @IDENT@_state *me = (const @IDENT@_state *)self;
  const double allocatable = host->node_allocatable(n)[0]; /* resource 0 is cpu */
  const double idle = host->node_idle(n)[0];
  (void)t;
  (void)st;
  *score = allocatable > 0 ? me->weight * 100.0 * idle / allocatable : 0;
  return CAL_SUCCESS;
}

static cal_plugin desc;

CALDERA_PLUGIN_ENTRY(h, abi) {
  (void)abi;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.abi_version = CAL_ABI_VERSION;
  desc.name = "@NAME@";
  desc.version = "0.1.0";
  desc.description = "prefers the nodes with the most idle cpu";
  desc.options = options;
  desc.option_count = sizeof options / sizeof options[0];
  desc.capabilities = CAL_CAP_NODE_PARALLEL;
  desc.open = @IDENT@_open;
  desc.close = @IDENT@_close;
  desc.node_order = @IDENT@_node_order;
  return &desc;
}
)TEXT";

constexpr const char* kSourceCpp = R"TEXT(// @NAME@: prefers the nodes with the most idle cpu.
//
// Score (plugin.h, "The score scale"): 100 * idle cpu / allocatable cpu, times
// @NAME@.weight; the host adds every plugin's score and takes the highest total.
// Reads only, so the host may call it on several nodes at once (CAL_CAP_NODE_PARALLEL).
#include <caldera/sdk.hpp>

namespace {

namespace sdk = caldera::sdk;

class @CLASS@ {
 public:
  static constexpr const char* kName = "@NAME@";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr const char* kDescription = "prefers the nodes with the most idle cpu";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::node_order);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kWeight{"@NAME@.weight", 1,
                                    "Weight of the idle-cpu score (0 turns it off)."};
  static constexpr auto kOptions = sdk::options(kWeight);

  @CLASS@(sdk::Session, const sdk::Args& a) : weight_(static_cast<double>(a.get(kWeight))) {}

  double node_order(sdk::Task, sdk::Node n) const {
    const double allocatable = n.allocatable()[0];  // resource 0 is cpu
    return allocatable > 0 ? weight_ * 100.0 * n.idle()[0] / allocatable : 0;
  }

 private:
  double weight_;
};

}  // namespace

CALDERA_PLUGIN(@CLASS@)
)TEXT";

constexpr const char* kScenario = R"TEXT(# @NAME@: the pod goes to the node with the most idle cpu.
#
# Derivation. n1 and n2: 4 cpu each; n1 runs a pod of 3 cpu, so its idle cpu is 1 (25 of
# 100), n2's is 4 (100). @NAME@.weight 1: n1 scores 25, n2 100; the pod (1 cpu) goes to
# n2. Without @NAME@ both score 0 and the first by name, n1, would take it.
name = "@NAME@: a pod goes to the node with the most idle cpu"

[config]
[config.scheduler]
actions = ["allocate"]
[[config.tiers]]
[[config.tiers.plugins]]
name = "predicates"
[[config.tiers.plugins]]
name = "@NAME@"
arguments = { "@NAME@.weight" = 1 }

[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "16Gi", pods = 110 }

[[nodes]]
name = "n2"
allocatable = { cpu = "4", memory = "16Gi", pods = 110 }

[[pods]]
name = "busy"
namespace = "c1"
requests = { cpu = "3", memory = "1Gi" }
phase = "Running"
node = "n1"

[[pods]]
name = "p"
namespace = "c1"
requests = { cpu = "1", memory = "1Gi" }

[expect]
binds = { "c1/p" = "n2" }
bind_count = 1
)TEXT";

// `text` with each @KEY@ of `values` replaced.
std::string fill(std::string text,
                 const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

}  // namespace

int new_plugin(const std::string& name, const std::string& lang, const fs::path& dir_given) {
  bool ok = !name.empty() && std::islower(static_cast<unsigned char>(name[0]));
  for (char c : name)
    ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_');
  if (!ok) {
    std::fprintf(stderr,
                 "new-plugin %s: a plugin name is lower-case letters, digits, '-' and '_', "
                 "starting with a letter (it names the .so, the config entry and its options)\n",
                 name.c_str());
    return 2;
  }
  const fs::path dir = dir_given.empty() ? fs::path(name) : dir_given;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    std::fprintf(stderr, "new-plugin: %s exists and is not empty; nothing written\n",
                 dir.string().c_str());
    return 1;
  }
  std::string ident = name, cls;
  for (char& c : ident)
    if (c == '-') c = '_';
  bool upper = true;
  for (char c : name) {
    if (c == '-' || c == '_') {
      upper = true;
      continue;
    }
    cls += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  const bool cpp = lang == "cpp";
  const std::string source = name + (cpp ? ".cpp" : ".c");
  // C++ plugins take caldera-sdk-cpp: the C++ layer with the C++20 it needs.
  const std::vector<std::pair<std::string, std::string>> values = {
      {"@NAME@", name},
      {"@IDENT@", ident},
      {"@CLASS@", cls},
      {"@SRC@", source},
      {"@CXXCMD@", cpp ? "c++" : "cc"},
      {"@CXX@", cpp ? "CXX" : "CC"},
      {"@FLAGS@", cpp ? "CXXFLAGS" : "CFLAGS"},
      {"@STD@", cpp ? "" : "-std=c99 "},
      {"@PC@", cpp ? "caldera-sdk-cpp" : "caldera-sdk"},
  };
  const std::pair<fs::path, const char*> files[] = {
      {"README.md", kReadme},
      {"Makefile", kMakefile},
      {source, cpp ? kSourceCpp : kSourceC},
      {fs::path("scenarios") / (name + "-prefers-idle-nodes.toml"), kScenario},
  };
  fs::create_directories(dir / "scenarios", ec);
  if (ec) {
    std::fprintf(stderr, "new-plugin: cannot create %s: %s\n", dir.string().c_str(),
                 ec.message().c_str());
    return 1;
  }
  for (const auto& [rel, body] : files) {
    std::ofstream out(dir / rel);
    out << fill(body, values);
    if (!out) {
      std::fprintf(stderr, "new-plugin: cannot write %s\n", (dir / rel).string().c_str());
      return 1;
    }
  }
  std::printf("wrote %s/: README.md, Makefile, %s, scenarios/%s-prefers-idle-nodes.toml\n"
              "build and check it: make -C %s && make -C %s check\n",
              dir.string().c_str(), files[2].first.string().c_str(), name.c_str(),
              dir.string().c_str(), dir.string().c_str());
  return 0;
}

}  // namespace caldera::cli
