#!/bin/sh
# No formulation option is read or written by its name in engine/ outside the formulation's own
# files (engine/formulations/form_*.c): the other files of its family use the typed access of
# its private header (form_X_private.h), so that a renamed setting fails to compile instead of
# reading NaN. By-name calls are mbs_settings_number, mbs_settings_value_for,
# mbs_settings_set_for and mbs_settings_set_number_for with a string literal for the name (the
# front ends in app/ use the names on purpose: they are the CLI flags and JSON keys).
# usage: check_option_names.sh ENGINE_DIR. Prints TAP.
dir="$1"
calls='mbs_settings_(number|value_for|set_for|set_number_for)[[:space:]]*\([^;]*"'
bad=$(grep -rnE "$calls" "$dir" --include='*.c' --include='*.h' |
      grep -vE '^[^:]*/formulations/form_[^/]*\.c:' |
      grep -vE '^[^:]*/(base/mbs_settings|formulations/mbs_formulation)\.[ch]:')
if [ -n "$bad" ]; then
  echo "not ok 1 - no option is read by name outside its formulation"
  echo "$bad" | sed 's/^/# /'
else
  echo "ok 1 - no option is read by name outside its formulation"
fi
# the check sees by-name calls where there are some (a pattern that matches nothing proves nothing)
own=$(grep -rlE "$calls" "$dir"/formulations --include='form_*.c' | wc -l)
[ "$own" -ge 1 ] && echo "ok 2 - the pattern finds by-name reads inside formulations ($own files)" ||
  echo "not ok 2 - the pattern finds no by-name read at all"
echo "1..2"
