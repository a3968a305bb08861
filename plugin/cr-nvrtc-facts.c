/* cr-nvrtc-facts.c: NVRTC's version and targets, asked of NVRTC or read
 * from a note in the kernel cache. */
#include "cr-nvrtc-facts.h"

#include <string.h>

#define NOTE_GROUP "nvrtc"

void
cr_nvrtc_facts_free (CrNvrtcFacts *facts)
{
  if (facts == NULL)
    return;
  g_free (facts->version);
  g_array_unref (facts->archs);
  g_free (facts);
}

static CrNvrtcFacts *
facts_new (void)
{
  CrNvrtcFacts *facts = g_new0 (CrNvrtcFacts, 1);
  facts->archs = g_array_new (FALSE, FALSE, sizeof (gint));
  return facts;
}

CrNvrtcFacts *
cr_nvrtc_facts_of (const CrNvrtc *rtc)
{
  CrNvrtcFacts *facts = facts_new ();
  int major = 0, minor = 0, n = 0;
  rtc->Version (&major, &minor);
  facts->version = g_strdup_printf ("%d.%d", major, minor);
  if (rtc->GetNumSupportedArchs && rtc->GetSupportedArchs
      && rtc->GetNumSupportedArchs (&n) == 0 && n > 0) {
    g_array_set_size (facts->archs, n);
    rtc->GetSupportedArchs ((int *)facts->archs->data);
  }
  facts->cubin = rtc->GetCUBIN != NULL;
  return facts;
}

gboolean
cr_nvrtc_facts_equal (const CrNvrtcFacts *a, const CrNvrtcFacts *b)
{
  return g_str_equal (a->version, b->version) && a->cubin == b->cubin
      && a->archs->len == b->archs->len
      && memcmp (a->archs->data, b->archs->data, a->archs->len * sizeof (gint))
      == 0;
}

/* One note per search: processes that would open different NVRTCs (another
 * LD_LIBRARY_PATH, another program) keep notes side by side. */
static gchar *
note_key (void)
{
  g_autofree gchar *search = cr_cuda_nvrtc_search ();
  return cr_cache_key (search, NULL, 0, "nvrtc facts");
}

CrNvrtcFacts *
cr_nvrtc_facts_recall (CrCache *cache, GError **error)
{
  g_autofree gchar *key = note_key ();
  g_autofree gchar *text = cr_cache_lookup_note (cache, key, error);
  if (text == NULL)
    return NULL;
  g_autoptr (GKeyFile) note = g_key_file_new ();
  if (!g_key_file_load_from_data (note, text, -1, G_KEY_FILE_NONE, error))
    return NULL;
  g_autofree gchar *file =
      g_key_file_get_string (note, NOTE_GROUP, "file", error);
  g_autofree gchar *noted = file
      ? g_key_file_get_string (note, NOTE_GROUP, "file-identity", error)
      : NULL;
  if (noted == NULL)
    return NULL;
  g_autofree gchar *now = cr_cuda_file_identity (file);
  if (!g_str_equal (noted, now)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_OTHER_KEY,
        "NVRTC has changed since it was noted: %s, noted as %s", now, noted);
    return NULL;
  }

  g_autoptr (CrNvrtcFacts) facts = facts_new ();
  gsize n = 0;
  g_autofree gint *archs = NULL;
  facts->version = g_key_file_get_string (note, NOTE_GROUP, "version", error);
  if (facts->version == NULL)
    return NULL;
  if (g_key_file_has_key (note, NOTE_GROUP, "archs", NULL)) {
    archs = g_key_file_get_integer_list (note, NOTE_GROUP, "archs", &n, error);
    if (archs == NULL)
      return NULL;
    g_array_append_vals (facts->archs, archs, n);
  }
  GError *bad = NULL;
  facts->cubin = g_key_file_get_boolean (note, NOTE_GROUP, "cubin", &bad);
  if (bad) {
    g_propagate_error (error, bad);
    return NULL;
  }
  return g_steal_pointer (&facts);
}

gboolean
cr_nvrtc_facts_note (CrCache *cache, const CrNvrtcFacts *facts, GError **error)
{
  g_autofree gchar *file = cr_cuda_nvrtc_file ();
  if (file == NULL) {
    g_set_error_literal (error, CR_CACHE_ERROR, CR_CACHE_ERROR_IO,
        "the file NVRTC was opened from is not known");
    return FALSE;
  }
  g_autofree gchar *identity = cr_cuda_file_identity (file);
  g_autoptr (GKeyFile) note = g_key_file_new ();
  g_key_file_set_string (note, NOTE_GROUP, "file", file);
  g_key_file_set_string (note, NOTE_GROUP, "file-identity", identity);
  g_key_file_set_string (note, NOTE_GROUP, "version", facts->version);
  if (facts->archs->len > 0)
    g_key_file_set_integer_list (note, NOTE_GROUP, "archs",
        (gint *)facts->archs->data, facts->archs->len);
  g_key_file_set_boolean (note, NOTE_GROUP, "cubin", facts->cubin);
  g_autofree gchar *text = g_key_file_to_data (note, NULL, NULL);
  g_autofree gchar *key = note_key ();
  return cr_cache_store_note (cache, key, text, error);
}
