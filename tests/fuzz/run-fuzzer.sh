#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time (meson test, suite "fuzz"; docs/architecture.md).
#   run-fuzzer.sh FUZZER SECONDS WORK_CORPUS ARTIFACT_DIR [-libfuzzer_option=VALUE]... INPUT_DIR...
# WORK_CORPUS (in the build directory) receives the new inputs the fuzzer finds; the
# INPUT_DIRs (regressions first, then the seed corpus) are only read. Options (-dict=...,
# -max_len=...) go to libFuzzer as they are. Fails on any crash,
# sanitizer report, leak, timeout (> 10 s for one input) or allocation above 2 GB, and says
# where the input that caused it was saved.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3 artifacts=$4
shift 4
mkdir -p "$work" "$artifacts"
opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
      -print_final_stats=1 -artifact_prefix="$artifacts/")
inputs=()
for arg in "$@"; do
    case $arg in
    -*) opts+=("$arg") ;;
    *) inputs+=("$arg") ;;
    esac
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
before=$(ls "$artifacts" | wc -l)
if "$fuzzer" "${opts[@]}" "$work" "${inputs[@]}"; then
    echo "no crash in ${seconds} s"
    exit 0
fi
echo "FUZZER FAILED: the input that caused it is in $artifacts/ ($(($(ls "$artifacts" | wc -l) - before)) new file(s))."
echo "Reproduce with: $fuzzer FILE; once fixed, add FILE to tests/fuzz/regressions/$(basename "$fuzzer" | sed 's/^fuzz-//')/"
exit 1
