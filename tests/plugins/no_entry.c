/* A shared object that is not a caldera plugin: it exports a function, but not
 * caldera_plugin_entry. */
#include "caldera/plugin.h"

CAL_EXPORT int not_a_plugin(void) { return 42; }
