#!/bin/sh
# UI smoke test: the window opens on a bundled model, runs it briefly, stores the run in a fresh
# project, checks it and quits. Needs an X server: run through xvfb-run. Prints TAP.
# usage: smoke-test.sh ESLABON_BINARY
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "1..2"
out=$("$1" --smoke-test --model four-bar-spatial --duration 1 --project "$dir/smoke.eslabon" 2>"$dir/stderr")
status=$?
echo "# $out"
grep -v -e dbus -e "session bus" "$dir/stderr" | sed 's/^/# /'
if [ $status -eq 0 ]; then echo "ok 1 - smoke test passed"; else echo "not ok 1 - smoke test exit status $status"; fi
if [ -s "$dir/smoke.eslabon" ]; then echo "ok 2 - project file written"; else echo "not ok 2 - no project file"; fi
