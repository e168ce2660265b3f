#!/bin/sh
# Runs a command under es_ES.UTF-8 with LANGUAGE=es (decimal comma, Spanish messages). A system
# without that locale gets one compiled into a temporary LOCPATH (localedef, from libc-bin;
# sources from `locales`), so the tests run everywhere instead of being skipped.
# usage: run-in-spanish.sh COMMAND [ARGS...]
set -u
if [ "$(LC_ALL=es_ES.UTF-8 locale decimal_point 2>/dev/null)" != "," ]; then
  LOCPATH=$(mktemp -d)
  trap 'rm -rf "$LOCPATH"' EXIT
  localedef -i es_ES -f UTF-8 "$LOCPATH/es_ES.UTF-8" >/dev/null 2>&1
  export LOCPATH
fi
LC_ALL=es_ES.UTF-8 LANG=es_ES.UTF-8 LANGUAGE=es ESLABON_TEST_SPANISH=1 "$@"
