/* bench-reduce.h: what the kernel benchmark's sections share: the device
 * data they read, and timing against the same ceilings. */
#pragma once

#include "cr-cuda.h"
#include "cr-monoid-names.h"
#include "cr-program.h"
#include "cr-reducer.h"

#ifdef CR_HAVE_CUB
#include "cub-reduce.h"
#endif

#include <stdio.h>

/* The smallest size timed; sizes go up by 4 times, the ceilings' rows. */
#define BENCH_MIN_BYTES (4 << 10)

typedef struct {
  const CrDriver *cu;
  CrDevice *device;
  CUstream stream;
  gsize region_bytes;
  CUdeviceptr region[2]; /* int32 data, float32 data */
  guint8 *host[2];
  CUdeviceptr copy_dst;
  CUdeviceptr scratch; /* CUB's output */
  CUdeviceptr temp;
  gsize temp_bytes;
  CUevent start, end;
  gboolean failed;
} Bench;

void die (const gchar *what, GError *error);
/* Exits, naming @what, unless @res is CUDA_SUCCESS. */
void check_cu (CUresult res, const gchar *what);
/* Which region holds data of @type: 0 int32, 1 float32. */
gint region_of (CrType type);

/* Median seconds of one call of @launch, over batches of back-to-back
 * calls on buffers taken in turn from the region. */
typedef void (*LaunchFn) (Bench *b, gpointer data, CUdeviceptr in, gsize n);
gdouble time_launches (
    Bench *b, LaunchFn launch, gpointer data, gint which, gsize bytes);

/* A device-to-device copy of n * 4 bytes: the bandwidth ceiling. */
void launch_copy (Bench *b, gpointer data, CUdeviceptr in, gsize n);

/* One reduction of ours with a packed context. */
typedef struct {
  CrReducer *reducer;
  const guint8 *ctx;
} OurLaunch;
void launch_ours (Bench *b, gpointer data, CUdeviceptr in, gsize n);

#ifdef CR_HAVE_CUB
gdouble time_cub (
    Bench *b, CrCubOp op, gdouble threshold, gint which, gsize bytes);
#endif

/* bench-histogram.c: the histogram monoid against CUB's DeviceHistogram
 * (8-bit with 256 bins, RGBA, 16-bit with 256, 1,024 and 4,096 bins), each
 * result checked against CUB's counts. */
void run_histograms (Bench *b, gsize max_bytes, FILE *csv);

/* bench-fused.c: fused programs of 1 to 4 members against their members
 * launched one after another, the slowest member alone and CUB's Sum. */
void run_fused (Bench *b, gsize max_bytes, FILE *csv, const gdouble *cub_sum);
