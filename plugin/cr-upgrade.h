/* cr-upgrade.h: a program's optimized image, compiled on a thread of its
 * own while a reducer starts with the image compiled for time
 * (CR_COMPILE_FAST). GLib only. */
#pragma once

#include "cr-compiler.h"

G_BEGIN_DECLS

typedef struct _CrUpgrade CrUpgrade;

/* Starts compiling @source for @arch, optimized, into the cache; NULL
 * (saying why in the debug log) where no thread can be made. */
CrUpgrade *cr_upgrade_start (const gchar *source, gint arch);
/* The optimized image, once, when the compile is done; NULL while it runs,
 * after it failed (said in the debug log), and after it was taken. */
CrCompiled *cr_upgrade_take (CrUpgrade *upgrade);
/* Blocks until the compile is done: for tests and benchmarks. */
void cr_upgrade_wait (CrUpgrade *upgrade);
/* The owner's reference: the compile runs on, and ends in the cache. */
void cr_upgrade_drop (CrUpgrade *upgrade);

G_END_DECLS
