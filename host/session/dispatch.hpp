// What the dispatch files (dispatch.cpp, node_dispatch.cpp) share: the status of a point
// that failed.
#pragma once

#include <string>

#include "host/session/session.hpp"

namespace caldera {

// A failed point's status: its code, the plugin's reason (or "<plugin> refused"), the
// plugin; a CAL_ERROR is logged.
PointStatus failed_status(cal_code code, const cal_status& st, const std::string& plugin);

}  // namespace caldera
