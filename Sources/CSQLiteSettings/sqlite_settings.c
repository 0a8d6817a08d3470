#include <sqlite3.h>
#include "sqlite_settings.h"

int makestagram_sqlite_memstatus_off(void) {
    // sqlite3_config takes variable arguments, which Swift cannot call.
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
