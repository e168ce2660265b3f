#!/bin/sh
# engine/ must not include GLib, GTK, GDK, GIO, epoxy, GL or cglm headers (DESIGN.md §1).
dir="$1"
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](glib|gtk|gdk|gio|epoxy|GL/|GLES|cglm)' "$dir" 2>/dev/null)
if [ -n "$bad" ]; then
  echo "not ok 1 - engine/ is free of GLib/GTK/GL headers"
  echo "# found in: $bad"
else
  echo "ok 1 - engine/ is free of GLib/GTK/GL headers"
fi
n=$(find "$dir" -name '*.c' | wc -l)
[ "$n" -gt 5 ] && echo "ok 2 - engine/ has sources to check ($n files)" || echo "not ok 2 - engine/ sources missing"
echo "1..2"
