// A plugin for tests/sdk/compile_checks.sh: it must compile with -DCORRECT and fail to
// compile, with the SDK's message, in every other variant.
#include "caldera/sdk.hpp"

namespace sdk = caldera::sdk;

struct Checked {
  static constexpr const char* kName = "checked";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription = "compile-time checks of the C++ SDK";
#ifndef NO_HOOKS
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::node_order, sdk::Hook::predicate);
#endif
  Checked(sdk::Session, const sdk::Args&) {}
  sdk::Status predicate(sdk::Task, sdk::Node) { return sdk::Status::ok(); }
#if defined(CORRECT) || defined(NO_HOOKS) || defined(UNLISTED)
  double node_order(sdk::Task, sdk::Node) { return 1; }
#elif defined(MISSPELT)
  double node_ordr(sdk::Task, sdk::Node) { return 1; }  // the point would be dropped
#elif defined(WRONG_SIGNATURE)
  double node_order(sdk::Task) { return 1; }
#endif
#ifdef UNLISTED
  bool job_ready(sdk::Job) { return true; }  // a hook method kHooks does not list
#endif
};

CALDERA_PLUGIN(Checked)
