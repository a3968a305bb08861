#!/bin/bash
# test-monoid-tool.sh TOOL SOURCE_DIR: cudareduce-monoid lists the
# built-ins, and with NVRTC compiles good monoids (built-in, fused, from a
# file, inline, with bins, percentiles and pairs) and fails on broken ones with the element's messages;
# --fill-cache fills a kernel cache.
# Without NVRTC the compiles are skipped (77), unless
# CUDAREDUCE_REQUIRE_NVRTC=1.
set -u
tool=$1 src=$2
# Under AddressSanitizer (./run sanitize) NVRTC's allocations, millions a
# compile, go through ASan's allocator; with the setup's slow unwinding
# on each (fast_unwind_on_malloc=0, for precise leak traces) a compile
# takes seven times as long and this script's dozens of them outlast its
# timeout. The frame-pointer unwinder still records every allocation and
# finds every leak; only its stack traces may be shorter.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=1"
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# expect STATUS PATTERN ARGS...: runs the tool, checks its status and that
# its output (stdout and stderr) contains PATTERN.
expect() {
  local want=$1 pattern=$2
  shift 2
  out=$("$tool" "$@" 2>&1)
  local status=$?
  [ "$status" = "$want" ] || fail "$* -> status $status, not $want: $out"
  case $out in
    *"$pattern"*) ;;
    *) fail "$* -> no '$pattern' in: $out" ;;
  esac
}

expect 0 "float32  mean:float64, variance:float64" --list
expect 0 "int8     value:int8, index:uint64" --list
expect 0 "uint16   histogram:uint64[256], below:uint64, above:uint64, nan:uint64" --list
expect 1 "monoid sum counts no bins" --bins 10 sum
expect 1 "a histogram has 1 to 65536 bins" --bins 70000 histogram
expect 2 "no input type 'int7'" --type int7 sum
# 2-D histograms: no fusing, at most 256 bins a side.
expect 0 "uint8    histogram:uint64[4096], below:uint64" --list
expect 1 "does not fuse" minmax+vectorscope
expect 1 "1 to 256 bins along each axis" --bins 300 vectorscope
expect 1 "is not a pair of components" --pair R histogram
expect 2 "Usage" 
expect 1 'There is no built-in monoid named "nosuch"' nosuch
expect 1 "the key Accumulator is missing" --load 'Acc r; r.s = x; return r;' broken

# A monoid file's strings are shown with control characters escaped, so
# that a file cannot put escape sequences on the terminal.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
evil="$tmp/evil.monoid"
printf '[Monoid]\nName=red\033[31mname\nDescription=t\033]0;title\007\nAccumulator=s:wide\nLoad=Acc r; /* \033[2J */ r.s = x; return r;\nCombine=Acc r; r.s = a.s + b.s; return r;\nIdentity=Acc r; r.s = 0; return r;\n' >"$evil"
# no_escapes ARGS...: the output has no ESC or BEL byte, and shows '\x1b'.
no_escapes() {
  out=$("$tool" "$@" 2>&1)
  case $out in
    *$'\033'* | *$'\007'*) fail "$(printf '%q ' "$@")-> a raw control character in: $(printf '%q' "$out")" ;;
  esac
  case $out in
    *'\x1b'*) ;;
    *) fail "$(printf '%q ' "$@")-> no escaped \\x1b in: $(printf '%q' "$out")" ;;
  esac
}
no_escapes --arch 90 --type float32 --single "$evil"
no_escapes --arch 90 --type float32 --single "sum+$evil"
no_escapes --arch 90 --type float32 --single --source "$evil"
escaped_dir="$tmp/dir"$'\033'"[2J"
mkdir "$escaped_dir"
cp "$evil" "$escaped_dir/x.monoid"
no_escapes --arch 90 --type float32 --single "$escaped_dir/x.monoid"
no_escapes --arch 90 --type float32 --single "$escaped_dir/absent.monoid"

out=$("$tool" --type float32 --single sum 2>&1)
case $out in
  *"could not be opened"*)
    if [ "${CUDAREDUCE_REQUIRE_NVRTC:-0}" = 1 ]; then
      fail "no NVRTC: $out"
    else
      echo "SKIP the compiles: no NVRTC ($out)"
      [ "$failed" = 0 ] && exit 77
      exit 1
    fi ;;
esac
expect 0 "sum on float32: ok" --type float32 --single sum
expect 0 "sumsq+minmax on int16: ok" --type int16 --single sumsq+minmax
expect 0 "range on float64: ok" --type float64 --single "$src/examples/monoids/range.monoid"
expect 0 "struct Acc {" --type uint8 --single --source count_gt
expect 0 "histogram on uint16: ok (" --type uint16 --single --bins 4096 histogram
expect 0 "histogram:uint64[4096]" --type uint16 --single --bins 4096 histogram
expect 0 "#define CR_BINS 100" --type int8 --single --bins 100 --source histogram
# Percentiles, Bin bodies (a file's and inline) and a fused histogram.
expect 0 "low:float64, high:float64, percentiles:float64[2]" --type uint8 \
  --single --percentiles 0.5,0.99 signalstats
expect 0 "median:float64" --type int32 --single "$src/examples/monoids/octaves.monoid"
expect 0 "histogram:uint64[3]" --type int16 --single --bins 3 \
  --bin 'return x < -1000 ? 0 : x > 1000 ? 2 : 1;' bands
expect 0 "minmax.min:int16, minmax.max:int16, histogram:uint64[256]" \
  --type int16 --single minmax+histogram
expect 1 "both count bins" --type int16 --single histogram+h2=histogram
expect 0 "#define CR_PAIR_BINS 64" --type uint8 --single --source vectorscope
expect 0 "histogram:uint64[1024]" --type uint8 --single --pair R,G --bins 32 histogram
expect 0 "rg on uint8: ok (" --type uint8 --single "$src/examples/monoids/rg.monoid"
expect 1 "not from 0 to 1" --type int16 --single --percentiles 1.5 histogram
expect 0 "t on int32: ok (" --type int32 --single --accumulator s:wide \
  --load 'Acc r; r.s = x; return r;' --combine 'Acc r; r.s = a.s + b.s; return r;' \
  --identity 'Acc r; r.s = 0; return r;' t
expect 1 'error: class "Acc" has no member "count"' --type int16 --single \
  --accumulator s:wide --load 'Acc r; r.s = x; r.count++; return r;' \
  --combine 'Acc r; r.s = a.s + b.s; return r;' --identity 'Acc r; r.s = 0; return r;' broken
expect 1 "The monoid does not compile" --type int16 --single \
  --accumulator s:wide --load 'Acc r; r.s = x; r.count++; return r;' \
  --combine 'Acc r; r.s = a.s + b.s; return r;' --identity 'Acc r; r.s = 0; return r;' broken
# Architectures NVRTC does not compile for: refused, with those it does.
expect 2 "--arch 12 is not a target of NVRTC" --arch 12 --type float32 --single sum
case $out in
  *"which compiles for "*[0-9]*) ;;
  *) fail "--arch 12 -> no list of targets in: $out" ;;
esac
# Warnings of undefined results are errors, without NVRTC's remark on an
# option the user cannot pass.
expect 1 "NVRTC's warning #940-D, taken as an error: a body can end without returning" \
  --type float32 --single --accumulator s:wide --load 'Acc r; r.s = x;' \
  --combine 'Acc r; r.s = a.s + b.s; return r;' --identity 'Acc r; r.s = 0; return r;' noret
case $out in
  *diag-suppress*) fail "noret -> a remark on -diag-suppress in: $out" ;;
esac
expect 1 "NVRTC's warning #549-D, taken as an error" --type float32 --single \
  --accumulator s:wide --load 'Acc r; int u; r.s = x + u; return r;' \
  --combine 'Acc r; r.s = a.s + b.s; return r;' --identity 'Acc r; r.s = 0; return r;' unset
# Every type, checked in parallel: the results in the order of the types,
# and a progress line as each ends.
expect 0 "10 of 10 types checked" --single sum
order=$(printf '%s\n' "$out" | sed -n 's/^sum on \([a-z0-9]*\): ok.*/\1/p' | tr '\n' ' ')
[ "$order" = "int8 uint8 int16 uint16 int32 uint32 int64 uint64 float32 float64 " ] ||
  fail "--single sum -> types in the order: $order"
# A context too large for a kernel's parameters: refused before NVRTC,
# with its size and the limit.
ctx_fields=$(for k in $(seq 0 250); do printf 'c%d:float64;' "$k"; done)
expect 1 "takes 2008 bytes on float32 input (251 fields), and a context holds at most 2000 bytes" \
  --type float32 --single --accumulator s:wide --load 'Acc r; r.s = x + ctx.c0; return r;' \
  --combine 'Acc r; r.s = a.s + b.s; return r;' --identity 'Acc r; r.s = 0; return r;' \
  --context-fields "$ctx_fields" big
# --fill-cache: each program the element may build, into the cache that
# GST_CUDAREDUCE_CACHE_DIR names; a second run compiles nothing. Without a
# GPU the architecture must be given.
export GST_CUDAREDUCE_CACHE_DIR="$tmp/cache"
if ! "$tool" --fill-cache --type uint8 --single sum >"$tmp/fill.out" 2>&1; then
  case $(cat "$tmp/fill.out") in
    *"--fill-cache without a GPU: name the GPU the cache is for with --arch"*) ;;
    *) fail "--fill-cache without --arch: $(cat "$tmp/fill.out")" ;;
  esac
fi
expect 0 "sum on uint8: 10 programs in the cache (10 compiled" --fill-cache --arch 90 --type uint8 sum
expect 0 "sum on uint8: 10 programs in the cache (0 compiled, in 0.0 s of NVRTC; 10 there already)" \
  --fill-cache --arch 90 --type uint8 sum
expect 0 "sum on float64: 2 programs in the cache (2 compiled" --fill-cache --arch 90 --type float64 --single sum
[ "$(find "$tmp/cache" -name '*.bin' | wc -l)" = 12 ] ||
  fail "--fill-cache left $(find "$tmp/cache" -name '*.bin' | wc -l) images, not 12"
# --window and --regions: the programs of an element with those, others
# than the ones above, a monoid that counts pairs too.
expect 0 "sum on uint8: 2 programs in the cache (2 compiled" \
  --fill-cache --arch 90 --type uint8 --single --window --regions sum
[ "$(find "$tmp/cache" -name '*.bin' | wc -l)" = 14 ] ||
  fail "--fill-cache --window --regions left $(find "$tmp/cache" -name '*.bin' | wc -l) images, not 14"
expect 0 "vectorscope on uint8: 2 programs in the cache (2 compiled" \
  --fill-cache --arch 90 --type uint8 --single --regions vectorscope
[ "$(find "$tmp/cache" -name '*.bin' | wc -l)" = 16 ] ||
  fail "--regions vectorscope left $(find "$tmp/cache" -name '*.bin' | wc -l) images, not 16"
# --all: every built-in in turn, here into the cache (one type, one result
# each, to keep it short); a MONOID beside it is refused.
expect 0 "monoids: every one compiles" --fill-cache --all --arch 90 --type uint8 --single
case $out in
  *"signalstats on uint8: 2 programs in the cache"*) ;;
  *) fail "--fill-cache --all did not fill signalstats: $out" ;;
esac
expect 2 "--all checks the built-ins as they are" --all sum
# A cache directory others can write to: refused, as the element refuses it.
mkdir -m 0777 "$tmp/open"
GST_CUDAREDUCE_CACHE_DIR="$tmp/open" expect 1 "the kernel cache:" --fill-cache --arch 90 --type uint8 --single sum
[ "$failed" = 0 ] && echo "cudareduce-monoid: ok"
exit $failed
