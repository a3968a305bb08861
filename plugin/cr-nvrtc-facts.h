/* cr-nvrtc-facts.h: what the compiler needs to know of NVRTC before it can
 * look an image up in the cache (its version, part of every key, and the
 * targets it can compile for), and a note of it in the cache, so that a
 * start from the cache need not open NVRTC at all.
 *
 * The note is kept under a key made from cr_cuda_nvrtc_search () and names
 * the file NVRTC was opened from. It is believed only while that file is
 * unchanged; a note that is wrong all the same costs a miss, never a wrong
 * image: the compiler opens NVRTC on a miss, and looks up again under the
 * key of the facts it then has. */
#pragma once

#include "cr-cache.h"
#include "cr-cuda.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gchar *version; /* "13.0" */
  GArray *archs; /* gint: the targets it can compile for; empty when an
                    NVRTC older than 11.2 cannot say */
  gboolean cubin; /* it can make CUBINs, not only PTX */
} CrNvrtcFacts;

CrNvrtcFacts *cr_nvrtc_facts_of (const CrNvrtc *rtc);
gboolean cr_nvrtc_facts_equal (const CrNvrtcFacts *a, const CrNvrtcFacts *b);
void cr_nvrtc_facts_free (CrNvrtcFacts *facts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrNvrtcFacts, cr_nvrtc_facts_free)

/* The facts noted in @cache for the NVRTC this process would open, or NULL
 * with the reason: no note, or the file it names has changed. */
CrNvrtcFacts *cr_nvrtc_facts_recall (CrCache *cache, GError **error);

/* Notes @facts in @cache, with the file NVRTC was opened from: NVRTC must
 * be open. */
gboolean cr_nvrtc_facts_note (
    CrCache *cache, const CrNvrtcFacts *facts, GError **error);

G_END_DECLS
