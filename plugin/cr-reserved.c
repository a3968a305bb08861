/* cr-reserved.c: the names the generated code, C++ and CUDA keep, which a
 * monoid's fields and its bodies' macros may not take. */
#include "cr-reserved.h"

#include "cr-types.h"

#include <string.h>

/* The one list of field names that are refused, and why. A field is a
 * struct member (Acc, Ctx, Out), so what breaks it is a word that means
 * something before member lookup: a keyword, an object-like macro, or a
 * type the struct's own members are declared with (after "int32 int32;"
 * the next "int32 x;" no longer names the type). Functions, variables and
 * the bodies' arguments (x, i, a, b, n, ctx, min, threadIdx) do not clash.
 * Every #define and typedef in the generated source, kernels included,
 * must be refused here; tests/check/test-monoid.c checks that it is. The
 * same names may not be defined, undefined, pushed or popped as macros by a
 * body (cr-monoid-body.c): after the layout checks, that would change what
 * they checked. */

/* C++17 and C++20 keywords, with the alternative tokens (and, or, ...),
 * which NVRTC reads as operators. */
static const gchar *const cxx_keywords[] = { "alignas", "alignof", "and",
  "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
  "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
  "const", "consteval", "constexpr", "constinit", "const_cast", "continue",
  "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do",
  "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
  "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
  "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
  "operator", "or", "or_eq", "private", "protected", "public", "register",
  "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
  "static", "static_assert", "static_cast", "struct", "switch", "template",
  "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
  "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
  "wchar_t", "while", "xor", "xor_eq", NULL };

/* Types the generated prelude defines besides the ten (cr-program.c). */
static const gchar *const generated_types[] = { "In", "wide", "Acc", "Ctx",
  "Out", NULL };

/* Object-like macros in force in every body without a prefix below: NVRTC
 * defines NULL without any header. */
static const gchar *const macros[] = { "NULL", NULL };

static const struct {
  const gchar *prefix;
  const gchar *why;
} reserved_prefixes[] = {
  { "cr_",
      "starts with cr_, which the generated code keeps for its own "
      "functions and fields" },
  { "CR_",
      "starts with CR_, which the generated code keeps for its "
      "macros (CR_IN_BYTES, CR_BLOCK_THREADS, ...)" },
  { "IN_",
      "starts with IN_, which the generated code keeps for its macros "
      "(IN_MAX, IN_LOWEST, IN_IS_FLOAT, IN_IS_SIGNED)" },
  /* NVRTC's built-in headers define macros under these: CUDART_VERSION,
   * cudaArrayDefault, CU_UUID_HAS_BEEN_DEFINED, NV_IS_DEVICE, ... */
  { "cuda", "starts with cuda, which CUDA keeps for its macros" },
  { "CUDA", "starts with CUDA, which CUDA keeps for its macros" },
  { "CU_", "starts with CU_, which CUDA keeps for its macros" },
  { "NV_", "starts with NV_, which CUDA keeps for its macros" },
};

const gchar *
cr_reserved_name_why (const gchar *name)
{
  if (g_strv_contains (cxx_keywords, name))
    return "is a C++ keyword";
  if (cr_type_from_name (name) != CR_TYPE_INVALID
      || g_strv_contains (generated_types, name))
    return "is the name of a type in the generated code (int8 ... float64, "
           "In, wide, Acc, Ctx, Out)";
  if (g_strv_contains (macros, name))
    return "is a macro in the generated code";
  /* CUDA's __device__, __shared__ ... and the compiler's _Pragma, _Bool. */
  if (strstr (name, "__") || (name[0] == '_' && g_ascii_isupper (name[1])))
    return "is reserved by C++ (it contains \"__\" or starts with \"_\" and "
           "a capital letter)";
  for (guint k = 0; k < G_N_ELEMENTS (reserved_prefixes); k++)
    if (g_str_has_prefix (name, reserved_prefixes[k].prefix))
      return reserved_prefixes[k].why;
  return NULL;
}
