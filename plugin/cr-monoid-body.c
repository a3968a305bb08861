/* cr-monoid-body.c: a body is code run with the process's rights, by
 * design (docs/monoids.md says so); what is refused here is what reaches
 * outside the function it is the body of and can be recognised cheaply:
 * including a file, which NVRTC would read and quote, and changing a macro
 * or a name the generated code keeps after the layout checks read them.
 *
 * The scan follows the preprocessor's first phases as far as finding
 * directives needs: a backslash-newline joins lines (except in a raw
 * string, as in C++), comments are space, and strings, character literals
 * and raw strings are skipped, so that a '#' inside them starts nothing. A
 * string left open ends at its line's end, where the compiler would stop
 * it with an error. What the scan cannot read is left to NVRTC. */
#include "cr-monoid-body.h"

#include "cr-error.h"
#include "cr-reserved.h"

#include <string.h>

typedef struct {
  const gchar *t;
  gsize at;
  guint line; /* of the body, from 1 */
} Scan;

/* Past backslash-newlines at the current position. */
static void
splice (Scan *s)
{
  for (;;) {
    if (s->t[s->at] == '\\' && s->t[s->at + 1] == '\n')
      s->at += 2;
    else if (s->t[s->at] == '\\' && s->t[s->at + 1] == '\r'
        && s->t[s->at + 2] == '\n')
      s->at += 3;
    else
      return;
    s->line++;
  }
}

static gchar
peek (Scan *s)
{
  splice (s);
  return s->t[s->at];
}

/* The character after the current one, splices skipped. */
static gchar
peek2 (Scan *s)
{
  Scan next = *s;
  splice (&next);
  if (next.t[next.at] == '\0')
    return '\0';
  next.at++;
  return peek (&next);
}

static void
advance (Scan *s)
{
  if (peek (s) == '\0')
    return;
  if (s->t[s->at] == '\n')
    s->line++;
  s->at++;
}

/* White space within a line. */
static gboolean
is_space (gchar c)
{
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Past a comment at the current position; FALSE when there is none. */
static gboolean
skip_comment (Scan *s)
{
  if (peek (s) != '/')
    return FALSE;
  if (peek2 (s) == '/') {
    while (peek (s) && peek (s) != '\n')
      advance (s);
    return TRUE;
  }
  if (peek2 (s) != '*')
    return FALSE;
  advance (s);
  advance (s);
  while (peek (s) && !(peek (s) == '*' && peek2 (s) == '/'))
    advance (s);
  advance (s);
  advance (s);
  return TRUE;
}

/* Past spaces and comments, and newlines when @newlines. */
static void
skip_blank (Scan *s, gboolean newlines)
{
  for (;;) {
    const gchar c = peek (s);
    if (is_space (c) || (newlines && c == '\n'))
      advance (s);
    else if (!skip_comment (s))
      return;
  }
}

/* An identifier at the current position, or NULL. */
static gchar *
read_identifier (Scan *s)
{
  if (!(g_ascii_isalpha (peek (s)) || peek (s) == '_'))
    return NULL;
  GString *name = g_string_new (NULL);
  while (g_ascii_isalnum (peek (s)) || peek (s) == '_') {
    g_string_append_c (name, peek (s));
    advance (s);
  }
  return g_string_free (name, FALSE);
}

/* Past a string or character literal opened at the current position; its
 * text destringized as _Pragma does (\" and \\ unescaped, other escapes
 * kept) when @text. */
static void
skip_quoted (Scan *s, GString *text)
{
  const gchar quote = peek (s);
  advance (s);
  while (peek (s) && peek (s) != '\n' && peek (s) != quote) {
    if (peek (s) == '\\') {
      advance (s);
      if (peek (s) == '\n' || peek (s) == '\0')
        break;
      if (text && peek (s) != '"' && peek (s) != '\\')
        g_string_append_c (text, '\\');
    }
    if (text)
      g_string_append_c (text, peek (s));
    advance (s);
  }
  if (peek (s) == quote)
    advance (s);
}

/* Past a raw string R"delim(...)delim" whose '"' is at the current
 * position. Its text is read as written: no splices in a raw string. */
static void
skip_raw (Scan *s)
{
  const gchar *open = s->t + s->at + 1;
  const gsize n = strcspn (open, "( )\\\t\v\f\n\"");
  if (open[n] != '(' || n > 16) {
    skip_quoted (s, NULL); /* not a raw string after all */
    return;
  }
  g_autofree gchar *end = g_strdup_printf (")%.*s\"", (gint)n, open);
  const gchar *close = strstr (open + n + 1, end);
  const gchar *stop = close ? close + strlen (end) : open + strlen (open);
  for (const gchar *p = s->t + s->at; p < stop; p++)
    s->line += *p == '\n';
  s->at = stop - s->t;
}

/* A pp-number: digits, letters, '.', digit separators, exponent signs. */
static void
skip_number (Scan *s)
{
  for (;;) {
    const gchar c = peek (s);
    if ((c == 'e' || c == 'E' || c == 'p' || c == 'P')
        && (peek2 (s) == '+' || peek2 (s) == '-')) {
      advance (s);
      advance (s);
    } else if (g_ascii_isalnum (c) || c == '_' || c == '.'
        || (c == '\'' && g_ascii_isalnum (peek2 (s)))) {
      advance (s);
    } else {
      return;
    }
  }
}

static gboolean
refuse_name (const gchar *name, const gchar *what, guint line, const gchar *key,
    const gchar *origin, GError **error)
{
  const gchar *why = name ? cr_reserved_name_why (name) : NULL;
  if (why == NULL)
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
      "%s: the body of %s, line %u: %s of \"%s\" is not allowed: the name "
      "%s; give a body's macros names of their own (and #undef them at its "
      "end)",
      origin, key, line, what, name, why);
  return FALSE;
}

/* The rest of a pragma's text after "#pragma" or inside _Pragma: refused
 * when it pushes or pops a name the generated code keeps. */
static gboolean
check_pragma (Scan *s, const gchar *how, guint line, const gchar *key,
    const gchar *origin, GError **error)
{
  skip_blank (s, FALSE);
  g_autofree gchar *name = read_identifier (s);
  if (g_strcmp0 (name, "push_macro") != 0 && g_strcmp0 (name, "pop_macro") != 0)
    return TRUE;
  skip_blank (s, FALSE);
  if (peek (s) != '(')
    return TRUE;
  advance (s);
  skip_blank (s, FALSE);
  if (peek (s) != '"')
    return TRUE;
  g_autoptr (GString) macro = g_string_new (NULL);
  skip_quoted (s, macro);
  g_autofree gchar *what = g_strdup_printf ("%s %s", how, name);
  return refuse_name (macro->str, what, line, key, origin, error);
}

/* _Pragma ("...") at the current position (the name read): its string,
 * unescaped, checked as a pragma's text. */
static gboolean
check_pragma_operator (
    Scan *s, const gchar *key, const gchar *origin, GError **error)
{
  const guint line = s->line;
  skip_blank (s, TRUE);
  if (peek (s) != '(')
    return TRUE;
  advance (s);
  skip_blank (s, TRUE);
  g_free (read_identifier (s)); /* an encoding prefix: L, u8, u, U */
  if (peek (s) != '"')
    return TRUE;
  g_autoptr (GString) text = g_string_new (NULL);
  skip_quoted (s, text);
  Scan inner = { text->str, 0, line };
  return check_pragma (&inner, "_Pragma", line, key, origin, error);
}

static gboolean
check_directive (Scan *s, const gchar *key, const gchar *origin, GError **error)
{
  const guint line = s->line;
  skip_blank (s, FALSE);
  g_autofree gchar *name = read_identifier (s);
  static const gchar *const includes[] = { "include", "include_next", "import",
    "embed", NULL };
  if (name && g_strv_contains (includes, name)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: the body of %s, line %u: #%s is not allowed: a body may not read "
        "other files (NVRTC would read any file this process can); write the "
        "code in the body itself",
        origin, key, line, name);
    return FALSE;
  }
  if (g_strcmp0 (name, "define") == 0 || g_strcmp0 (name, "undef") == 0) {
    skip_blank (s, FALSE);
    g_autofree gchar *macro = read_identifier (s);
    g_autofree gchar *what = g_strconcat ("#", name, NULL);
    if (!refuse_name (macro, what, line, key, origin, error))
      return FALSE;
  } else if (g_strcmp0 (name, "pragma") == 0
      && !check_pragma (s, "#pragma", line, key, origin, error)) {
    return FALSE;
  }
  /* The rest of the directive's line, which a comment may carry onto the
   * next lines. */
  while (peek (s) && peek (s) != '\n') {
    if (skip_comment (s))
      continue;
    if (peek (s) == '"' || peek (s) == '\'')
      skip_quoted (s, NULL);
    else
      advance (s);
  }
  return TRUE;
}

gboolean
cr_monoid_body_check (
    const gchar *body, const gchar *key, const gchar *origin, GError **error)
{
  Scan s = { body, 0, 1 };
  gboolean line_start = TRUE; /* bodies are pasted on lines of their own */
  while (peek (&s)) {
    const gchar c = peek (&s);
    if (c == '\n') {
      line_start = TRUE;
      advance (&s);
    } else if (is_space (c)) {
      advance (&s);
    } else if (skip_comment (&s)) {
      continue; /* a space: the line's start is where it was */
    } else if (line_start && (c == '#' || (c == '%' && peek2 (&s) == ':'))) {
      advance (&s);
      if (c == '%')
        advance (&s);
      if (!check_directive (&s, key, origin, error))
        return FALSE;
    } else {
      line_start = FALSE;
      if (g_ascii_isalpha (c) || c == '_') {
        g_autofree gchar *name = read_identifier (&s);
        static const gchar *const raw[] = { "R", "u8R", "uR", "UR", "LR",
          NULL };
        if (peek (&s) == '"' && g_strv_contains (raw, name))
          skip_raw (&s);
        else if (strcmp (name, "_Pragma") == 0
            && !check_pragma_operator (&s, key, origin, error))
          return FALSE;
      } else if (g_ascii_isdigit (c)
          || (c == '.' && g_ascii_isdigit (peek2 (&s)))) {
        skip_number (&s);
      } else if (c == '"' || c == '\'') {
        skip_quoted (&s, NULL);
      } else {
        advance (&s);
      }
    }
  }
  return TRUE;
}
