/* fuzz-common.h: what the libFuzzer targets share: GLib's warnings made
 * fatal, splitting an input into texts, and the checks every parsed monoid
 * goes through (its layouts and the CUDA source generated from it). */
#pragma once

#include "cr-monoid-names.h"
#include "cr-program.h"

#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

/* From LLVMFuzzerInitialize: a warning or critical aborts, so that
 * libFuzzer keeps the input that caused it. */
void cr_fuzz_init (void);

/* Between TRUE and FALSE, GStreamer's own warnings and criticals are
 * neither fatal nor printed: around GStreamer's parsing of the user's text,
 * whose faults (1.22 logs a critical for some names it then refuses, and
 * warns about deprecated quoting) are GStreamer's, not ours to find. */
void cr_fuzz_gstreamer_parsing (gboolean parsing);

/* Prints why and aborts: a crash libFuzzer saves the input of. */
void cr_fuzz_fail (const gchar *format, ...)
    G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

/* Splits @data at NUL bytes into at most @n texts (copies, in @texts);
 * texts past the last one in @data are NULL. A NUL is the one byte no
 * property or file line can hold, so it cannot be part of a text. Returns
 * how many texts @data had. Free each with g_free. */
guint cr_fuzz_split (const uint8_t *data, size_t size, gchar **texts, guint n);

/* Either a monoid or an error, never both or neither; for a monoid, its
 * layouts and the programs for every input type pass cr_fuzz_check_program,
 * and one program with the per-channel kernels too. */
void cr_fuzz_check_result (CrMonoid *monoid, GError *error);

/* The generated source keeps the monoid's name and origin inside its first
 * comment, and the layouts are consistent. Aborts otherwise. */
void cr_fuzz_check_program (const CrProgram *program);

G_END_DECLS
