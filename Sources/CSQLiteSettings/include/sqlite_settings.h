#ifndef MAKESTAGRAM_SQLITE_SETTINGS_H
#define MAKESTAGRAM_SQLITE_SETTINGS_H

/// Turns off SQLite's count of the memory it has allocated (SQLITE_CONFIG_MEMSTATUS): with it on, every allocation
/// and release takes a process-wide mutex. Takes effect only before SQLite is first initialized (the first
/// connection opened); answers SQLite's result code (0 when applied, 21 when SQLite was already initialized).
int makestagram_sqlite_memstatus_off(void);

#endif
