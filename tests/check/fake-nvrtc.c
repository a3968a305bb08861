/* fake-nvrtc.c: an NVRTC that compiles anything into a fixed image, opened
 * with GST_CUDAREDUCE_NVRTC_LIBRARY, for tests of what the compiler does
 * with NVRTC's answers. CR_FAKE_NVRTC_FAIL names a call that then fails
 * ("GetPTXSize", "GetPTX", "GetCUBINSize", "GetCUBIN"; the image calls
 * write half the image first), or is "empty": the sizes are 0. For the
 * compile itself: "Compile" is source that does not compile (a log with
 * an error line), "CompileInternal" NVRTC failing on its own (no log),
 * "GetProgramLog" a compile error whose log cannot be read (the failed
 * call leaves bytes that are not the log).
 *
 * With tests/check/fake-cuda.c, source that contains CR_FAKE_NEVER_ENDS
 * (in a comment of a monoid's body, say) compiles to an image whose
 * kernels never end, and CR_FAKE_FAULTS to one whose kernels fault. */
#include <stdlib.h>
#include <string.h>

#define FAILURE 7 /* NVRTC_ERROR_BUILTIN_OPERATION_FAILURE */

static const char cubin[] = "a fake CUBIN";
static const char ptx[] = ".version 8.0 // a fake PTX";
static const char cubin_never_ends[] = "a fake CUBIN that never ends";
static const char ptx_never_ends[] =
    ".version 8.0 // a fake PTX that never ends";
static const char cubin_faults[] = "a fake CUBIN that faults";
static const char ptx_faults[] = ".version 8.0 // a fake PTX that faults";

/* A program: the images its source compiles to. */
typedef struct {
  const char *cubin, *ptx;
} Program;

static int
fails (const char *call)
{
  const char *which = getenv ("CR_FAKE_NVRTC_FAIL");
  return which && strcmp (which, call) == 0;
}

static int
empty (void)
{
  return fails ("empty");
}

const char *
nvrtcGetErrorString (int result)
{
  return result == FAILURE ? "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (fake)"
                           : "fake";
}

int
nvrtcVersion (int *major, int *minor)
{
  *major = 12;
  *minor = 8;
  return 0;
}

int
nvrtcGetNumSupportedArchs (int *count)
{
  *count = 3;
  return 0;
}

int
nvrtcGetSupportedArchs (int *archs)
{
  archs[0] = 75;
  archs[1] = 80;
  archs[2] = 90;
  return 0;
}

int
nvrtcCreateProgram (void **prog, const char *src, const char *name,
    int n_headers, const char *const *headers, const char *const *names)
{
  Program *p = malloc (sizeof (Program));
  if (strstr (src, "CR_FAKE_NEVER_ENDS")) {
    p->cubin = cubin_never_ends;
    p->ptx = ptx_never_ends;
  } else if (strstr (src, "CR_FAKE_FAULTS")) {
    p->cubin = cubin_faults;
    p->ptx = ptx_faults;
  } else {
    p->cubin = cubin;
    p->ptx = ptx;
  }
  *prog = p;
  return 0;
}

int
nvrtcDestroyProgram (void **prog)
{
  free (*prog);
  *prog = NULL;
  return 0;
}

#define COMPILATION 6 /* NVRTC_ERROR_COMPILATION */

static const char compile_log[] =
    "cudareduce.cu(2): warning: a fake warning\n"
    "cudareduce.cu(3): error: the fake refuses this monoid\n";
static const char not_the_log[] = "stale bytes, error: not the log\n";

int
nvrtcCompileProgram (void *prog, int n_options, const char *const *options)
{
  if (fails ("Compile") || fails ("GetProgramLog"))
    return COMPILATION;
  return fails ("CompileInternal") ? FAILURE : 0;
}

int
nvrtcGetProgramLogSize (void *prog, size_t *size)
{
  *size = fails ("Compile") || fails ("GetProgramLog") ? sizeof compile_log : 1;
  return 0;
}

int
nvrtcGetProgramLog (void *prog, char *log)
{
  if (fails ("GetProgramLog")) {
    memcpy (log, not_the_log, sizeof not_the_log);
    return FAILURE;
  }
  if (fails ("Compile"))
    memcpy (log, compile_log, sizeof compile_log);
  else
    log[0] = '\0';
  return 0;
}

static int
image_size (const char *call, size_t size, size_t *out)
{
  if (fails (call))
    return FAILURE;
  *out = empty () ? 0 : size;
  return 0;
}

/* A failure leaves part of the image written, as a real one could. */
static int
image (const char *call, const char *data, size_t size, char *out)
{
  if (empty ())
    return 0;
  memcpy (out, data, fails (call) ? size / 2 : size);
  return fails (call) ? FAILURE : 0;
}

int
nvrtcGetPTXSize (void *prog, size_t *size)
{
  const Program *p = prog;
  return image_size ("GetPTXSize", strlen (p->ptx) + 1, size);
}

int
nvrtcGetPTX (void *prog, char *out)
{
  const Program *p = prog;
  return image ("GetPTX", p->ptx, strlen (p->ptx) + 1, out);
}

int
nvrtcGetCUBINSize (void *prog, size_t *size)
{
  const Program *p = prog;
  return image_size ("GetCUBINSize", strlen (p->cubin) + 1, size);
}

int
nvrtcGetCUBIN (void *prog, char *out)
{
  const Program *p = prog;
  return image ("GetCUBIN", p->cubin, strlen (p->cubin) + 1, out);
}
