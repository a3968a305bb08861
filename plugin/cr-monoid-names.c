/* cr-monoid-names.c: the monoid property's value resolved to a monoid:
 * built-ins from the plugin's resources, .monoid files, and fused lists,
 * whose members are loaded here and then combined by cr_monoid_fuse. */
#include "cr-monoid-names.h"
#include "cr-fuse.h"

#include "cr-error.h"

#include "cr-resource.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *)a, *(const gchar *const *)b);
}

gchar **
cr_monoid_builtin_names (void)
{
  g_auto (GStrv) files = g_resource_enumerate_children (
      cr_resource (), CR_RESOURCE_MONOIDS, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint k = 0; files && files[k]; k++)
    if (g_str_has_suffix (files[k], ".monoid"))
      g_ptr_array_add (
          names, g_strndup (files[k], strlen (files[k]) - strlen (".monoid")));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (gchar **)g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

static gboolean
names_a_file (const gchar *name_or_path)
{
  return strchr (name_or_path, '/') != NULL
      || g_str_has_suffix (name_or_path, ".monoid");
}

const gchar *
cr_member_label_end (const gchar *item)
{
  /* A '=' after a '/' belongs to a path. */
  const gchar *equals = strchr (item, '=');
  const gchar *slash = strchr (item, '/');
  return equals && (slash == NULL || equals < slash) ? equals : NULL;
}

/* Members joined by '+', or one labelled member ("lo=count_gt", a '='
 * before any '/'); a file of that path stays one monoid. */
gboolean
cr_monoid_names_a_list (const gchar *name_or_path)
{
  if (strchr (name_or_path, '+') == NULL
      && cr_member_label_end (name_or_path) == NULL)
    return FALSE;
  return !(names_a_file (name_or_path)
      && g_file_test (name_or_path, G_FILE_TEST_EXISTS));
}

/* A monoid file is far smaller than this; a larger one is refused rather
 * than read (docs/monoids.md says so). */
#define MONOID_FILE_MAX (1 << 20)

static const gchar *
file_kind (mode_t mode)
{
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

/* Reads @path through one descriptor, so that what is checked is what is
 * read: a name checked and then opened again could be swapped in between
 * for a FIFO, whose read waits for a writer for ever. O_NONBLOCK makes
 * opening a FIFO return at once; fstat then refuses it. */
static gchar *
read_monoid_file (const gchar *path, gsize *length, GError **error)
{
  gint fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0) {
    const gint saved = errno;
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
        "Cannot read the monoid file: %s: %s", path, g_strerror (saved));
    return NULL;
  }
  struct stat st;
  gchar *data = NULL;
  if (fstat (fd, &st) != 0) {
    const gint saved = errno;
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
        "Cannot read the monoid file: %s: %s", path, g_strerror (saved));
  } else if (!S_ISREG (st.st_mode)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
        "Cannot read the monoid file: %s is %s, not a regular file; give "
        "the path of a .monoid file",
        path, file_kind (st.st_mode));
  } else if (st.st_size > MONOID_FILE_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
        "Cannot read the monoid file: %s is %" G_GINT64_FORMAT
        " bytes, and a monoid file is at most %d (1 MiB)",
        path, (gint64)st.st_size, MONOID_FILE_MAX);
  } else {
    /* One byte more than fstat said: a file that grew since is refused,
     * not cut short. */
    const gsize size = (gsize)st.st_size + 1;
    data = g_malloc (size);
    gsize got = 0;
    while (got < size) {
      const gssize n = read (fd, data + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        const gint saved = errno;
        g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
            "Cannot read the monoid file: %s: %s", path, g_strerror (saved));
        g_clear_pointer (&data, g_free);
        break;
      }
      if (n == 0)
        break;
      got += n;
    }
    if (data && got == size) {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
          "Cannot read the monoid file: %s grew while it was read; load it "
          "again once it is written",
          path);
      g_clear_pointer (&data, g_free);
    }
    *length = got;
  }
  close (fd);
  return data;
}

static CrMonoid *
load_file (const gchar *path, GError **error)
{
  gsize length = 0;
  g_autofree gchar *contents = read_monoid_file (path, &length, error);
  if (contents == NULL)
    return NULL;
  return cr_monoid_new_from_data (contents, length, path, error);
}

static CrMonoid *
load_builtin (const gchar *name, GError **error)
{
  g_autofree gchar *path =
      g_strconcat (CR_RESOURCE_MONOIDS, name, ".monoid", NULL);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (
      cr_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL) {
    g_auto (GStrv) names = cr_monoid_builtin_names ();
    g_autofree gchar *list = g_strjoinv (", ", names);
    g_set_error (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "There is no built-in monoid named \"%s\"; the built-ins are %s. "
        "A path to a .monoid file must contain a '/' or end in .monoid",
        name, list);
    return NULL;
  }
  g_autofree gchar *origin = g_strdup_printf ("built-in monoid %s", name);
  gsize length = 0;
  const gchar *data = g_bytes_get_data (bytes, &length);
  return cr_monoid_new_from_data (data, length, origin, error);
}

/* A single monoid: a file or a built-in, never a list. */
static CrMonoid *
load_one (const gchar *name_or_path, GError **error)
{
  return names_a_file (name_or_path) ? load_file (name_or_path, error)
                                     : load_builtin (name_or_path, error);
}

/* One item of the list: "name-or-path" or "label=name-or-path". The label
 * is the member's name when it is not given. */
static CrMonoid *
load_member (const gchar *item, guint index, const gchar *list, gchar **label,
    GError **error)
{
  g_autofree gchar *text = g_strstrip (g_strdup (item));
  const gchar *equals = cr_member_label_end (text);
  gboolean labelled = equals != NULL;
  g_autofree gchar *given =
      labelled ? g_strstrip (g_strndup (text, equals - text)) : NULL;
  const gchar *what = labelled ? equals + 1 : text;

  while (labelled && g_ascii_isspace (*what))
    what++;
  if (*what == '\0') {
    g_set_error (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "The fused monoid \"%s\" has an empty member %u; write members as "
        "name+name (built-ins or .monoid files), each optionally labelled "
        "label=name",
        list, index + 1);
    return NULL;
  }
  /* "lo=hi=count_gt": refused as the list it would be, so that a value of
   * many labels is not taken apart one label at a time. */
  if (labelled && cr_monoid_names_a_list (what)) {
    g_set_error (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "In the fused monoid \"%s\", member %u (\"%s\") has more than one "
        "label; label a member once, as label=name",
        list, index + 1, text);
    return NULL;
  }
  CrMonoid *m = load_one (what, error);
  if (m == NULL) {
    g_prefix_error (
        error, "In the fused monoid \"%s\", member %u: ", list, index + 1);
    return NULL;
  }
  const gchar *name = given ? given : m->name;
  /* A label, like a field name, is an identifier: "label.field" is then a
   * field name that GstStructure's text form reads back. */
  if (!cr_is_identifier (name)) {
    if (given)
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", the label \"%s\" of member %u is not "
          "usable; use letters, digits and underscores, not starting with a "
          "digit",
          list, given, index + 1);
    else
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", member %u is named \"%s\", which "
          "cannot label its result fields; label it label=%s, with letters, "
          "digits and underscores",
          list, index + 1, name, what);
    cr_monoid_unref (m);
    return NULL;
  }
  *label = g_strdup (name);
  return m;
}

static CrMonoid *
load_list (const gchar *list, GError **error)
{
  g_auto (GStrv) items = g_strsplit (list, "+", -1);
  g_autoptr (GPtrArray) members =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_monoid_unref);
  g_autoptr (GStrvBuilder) labels = g_strv_builder_new ();

  for (guint k = 0; items[k]; k++) {
    g_autofree gchar *label = NULL;
    CrMonoid *m = load_member (items[k], k, list, &label, error);
    if (m == NULL)
      return NULL;
    g_ptr_array_add (members, m);
    g_strv_builder_add (labels, label);
  }
  g_auto (GStrv) names = g_strv_builder_end (labels);
  return cr_monoid_fuse (members, (const gchar *const *)names, error);
}

CrMonoid *
cr_monoid_load (const gchar *name_or_path, GError **error)
{
  if (name_or_path == NULL || *name_or_path == '\0') {
    g_set_error_literal (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "No monoid is set; set the monoid property to a built-in name or "
        "a .monoid file");
    return NULL;
  }
  if (cr_monoid_names_a_list (name_or_path))
    return load_list (name_or_path, error);
  return load_one (name_or_path, error);
}
