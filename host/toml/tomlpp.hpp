// toml++, under either of its header names: upstream ships <toml++/toml.hpp>, Debian's
// package only <toml++/toml.h>. Only host/toml/ and the tests include it; the readers see
// toml++ through host/toml/reader.hpp.
#pragma once

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif
