/* cr-test-leaks.c: objects a test made and left alive. */
#include "cr-test-leaks.h"

#include <string.h>

GstTracer *
cr_test_leaks_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers ();
  GstTracer *found = NULL;
  for (GList *t = tracers; t; t = t->next)
    if (found == NULL
        && g_str_equal (G_OBJECT_TYPE_NAME (t->data), "GstLeaksTracer"))
      found = gst_object_ref (t->data);
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

GHashTable *
cr_test_track_objects (GstTracer *tracer)
{
  g_signal_emit_by_name (tracer, "activity-start-tracking");
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
cr_test_update_alive (GstTracer *tracer, GHashTable *alive)
{
  GstStructure *checkpoint = NULL;
  /* Made first, then freed: an address freed and made again within one
   * checkpoint counts once made and once freed, in that order or not. */
  const gchar *lists[] = { "objects-created-list", "objects-removed-list" };

  g_signal_emit_by_name (tracer, "activity-get-checkpoint", &checkpoint);
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++) {
    const GValue *list = gst_structure_get_value (checkpoint, lists[l]);
    for (guint k = 0; list && k < gst_value_list_get_size (list); k++) {
      const GstStructure *o =
          gst_value_get_structure (gst_value_list_get_value (list, k));
      gchar *key =
          g_strdup_printf ("%s %s", gst_structure_get_string (o, "type-name"),
              gst_structure_get_string (o, "address"));
      gint n = GPOINTER_TO_INT (g_hash_table_lookup (alive, key));
      n += l == 0 ? 1 : -1;
      if (n > 0) {
        g_hash_table_replace (alive, key, GINT_TO_POINTER (n));
      } else {
        g_hash_table_remove (alive, key);
        g_free (key);
      }
    }
  }
  gst_structure_free (checkpoint);
}

/* Per test */

static GstTracer *test_tracer;
static GHashTable *test_alive;

/* What GStreamer makes once and keeps: the plugin and its features when
 * the first element of a kind is made, pad templates and their caps,
 * and the default task pool. */
static gboolean
kept_by_gstreamer (const gchar *type)
{
  const gchar *kept[] = { "GstCaps", "GstPadTemplate", "GstPlugin",
    "GstElementFactory", "GstTypeFindFactory", "GstTaskPool" };
  for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
    if (g_str_equal (type, kept[k]))
      return TRUE;
  return FALSE;
}

static void
start_test (void)
{
  test_tracer = cr_test_leaks_tracer ();
  if (test_tracer)
    test_alive = cr_test_track_objects (test_tracer);
}

static void
end_test (void)
{
  if (test_tracer == NULL)
    return;
  cr_test_update_alive (test_tracer, test_alive);
  g_signal_emit_by_name (test_tracer, "activity-stop-tracking");
  GString *left = g_string_new (NULL);
  GHashTableIter iter;
  gpointer key;
  g_hash_table_iter_init (&iter, test_alive);
  while (g_hash_table_iter_next (&iter, &key, NULL)) {
    g_auto (GStrv) parts = g_strsplit (key, " ", 2);
    if (!kept_by_gstreamer (parts[0]))
      g_string_append_printf (left, " %s", (const gchar *)key);
  }
  g_clear_pointer (&test_alive, g_hash_table_unref);
  g_autofree gchar *found = g_string_free (left, FALSE);
  if (found[0] != '\0')
    g_signal_emit_by_name (test_tracer, "log-live-objects");
  gst_clear_object (&test_tracer);
  fail_unless (found[0] == '\0',
      "the test left alive objects it made:%s (run it with GST_TRACERS="
      "\"leaks(stack-traces-flags=full)\" GST_DEBUG=GST_TRACER:7 to see "
      "where they were made)",
      found);
}

void
cr_test_check_objects (TCase *tc)
{
  tcase_add_checked_fixture (tc, start_test, end_test);
}
