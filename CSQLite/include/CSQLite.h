#ifndef CSQLITE_H
#define CSQLITE_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which the Swift importer cannot see: these bind
// text and blobs with it, so SQLite copies the bytes before the call returns.

int CSQLite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length);

int CSQLite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length);

#endif
