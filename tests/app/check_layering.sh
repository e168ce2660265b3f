#!/bin/sh
# app/ is the GLib-only application core (docs/architecture.md, "Layers"): no file in it may
# include a header of ui/ or any GTK/GDK/GSK header. Prints TAP.
# usage: check_layering.sh SOURCE_ROOT
root="$1"
app_files=$(find "$root"/app -name '*.[ch]' | sort)
echo "1..3"
n=$(echo "$app_files" | wc -l)
[ "$n" -gt 5 ] && echo "ok 1 - app/ has sources to check ($n files)" \
  || echo "not ok 1 - app/ sources missing"
bad=""
for h in "$root"/ui/*.h; do
  b=$(basename "$h")
  hit=$(grep -lE "#[[:space:]]*include[[:space:]]*[<\"]$b[>\"]" $app_files 2>/dev/null)
  [ -n "$hit" ] && bad="$bad $b in $(echo $hit)"
done
if [ -z "$bad" ]; then echo "ok 2 - no file in app/ includes a ui/ header"
else echo "not ok 2 - app/ includes ui/ headers:$bad"; fi
gtk=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](gtk|gdk|gsk)/' $app_files 2>/dev/null)
if [ -z "$gtk" ]; then echo "ok 3 - no file in app/ includes a GTK, GDK or GSK header"
else echo "not ok 3 - GTK headers in app/:" $gtk; fi
