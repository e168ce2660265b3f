#!/bin/sh
# The include rules of the floors and rooms (docs/architecture.md, "Rooms" and "Layers"):
#   floors: ui -> app -> render -> engine, never up (app/ also no GTK/GDK/GSK header);
#   rooms of engine/: each may include its own headers and those of the rooms RULES lists for it;
#   a back-arrow that exists today is listed in DEBTS (file -> header), so no new one creeps in.
# A header is placed by its name (each room is an include directory). Prints TAP.
# usage: check_layering.sh SOURCE_ROOT
root="$1"
cd "$root" || { echo "1..1"; echo "not ok 1 - no source root '$root'"; exit 0; }

# room: the rooms it may include (besides itself). The model layer (model, forces, vehicle)
# is one: the model holds force and tyre elements whose classes describe their fields.
RULES='
engine/base:
engine/linalg: engine/base
engine/model: engine/base engine/linalg engine/forces engine/vehicle
engine/forces: engine/base engine/linalg engine/model engine/vehicle kernels:mbs_scalar.h
engine/vehicle: engine/base engine/linalg engine/model engine/forces kernels:mbs_scalar.h
engine/kernels: engine/base engine/linalg engine/model engine/forces engine/vehicle
engine/tangent: engine/base engine/linalg kernels:mbs_scalar.h
engine/formulations: engine/base engine/linalg engine/model engine/forces engine/vehicle engine/kernels engine/tangent
engine/run: engine/base engine/linalg engine/model engine/forces engine/vehicle engine/kernels engine/tangent engine/formulations
engine/sensitivity: engine/base engine/linalg engine/model engine/forces engine/vehicle engine/kernels engine/tangent engine/formulations engine/run
'
# Back-arrows of today (docs/architecture.md, "Rooms": what is left to untangle), one per line:
# FILE -> HEADER. Remove a line when its arrow goes; never add one without a reason there.
DEBTS='
engine/base/mbs_settings.h -> mbs_model.h
engine/model/mbs_objective.h -> mbs_formulation.h
engine/model/mbs_objective.h -> mbs_kinematics.h
engine/model/mbs_objective.h -> mbs_constraints_derivatives.h
engine/model/mbs_objective.c -> mbs_kinematics.h
engine/model/mbs_objective.c -> mbs_natural.h
engine/formulations/mbs_formulation.h -> mbs_trace.h
'

# every include of a project header: "file dir-of-header header" (one grep, one awk)
headers=$(find engine app render ui -name '*.h')
edges=$(grep -rHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' engine app render ui \
          --include='*.c' --include='*.h' |
        awk -v H="$headers" 'BEGIN { n = split(H, hs, "\n")
                                      for (i = 1; i <= n; i++) { k = hs[i]; sub(/.*\//, "", k)
                                        d = hs[i]; sub(/\/[^\/]*$/, "", d); dir[k] = d } }
             { f = $0; sub(/:.*/, "", f); h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
               sub(/.*\//, "", h); if (h in dir) print f, dir[h], h }')
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "$2" ] && echo "$2" | sed 's/^/# /'; }

# the floors
app_files=$(find app -name '*.[ch]' | sort)
count=$(echo "$app_files" | wc -l)
[ "$count" -gt 5 ] && ok "app/ has sources to check ($count files)" || notok "app/ sources missing"
floor_check() { # floor, floors it must not include
  floor=$1; shift
  bad=$(echo "$edges" | awk -v fl="$floor" -v up="$*" '
          BEGIN { n = split(up, u, " ") }
          index($1, fl "/") == 1 { for (i = 1; i <= n; i++)
                                     if ($2 == u[i] || index($2, u[i] "/") == 1) print $1, "->", $3 }')
  if [ -z "$bad" ]; then ok "$floor/ includes no header of $*"
  else notok "$floor/ includes headers of $*" "$bad"; fi
}
floor_check engine app render ui
floor_check render app ui
floor_check app ui
gtk=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](gtk|gdk|gsk)/' $app_files 2>/dev/null)
[ -z "$gtk" ] && ok "no file in app/ includes a GTK, GDK or GSK header" ||
  notok "GTK headers in app/" "$gtk"

# the generic panels edit every formulation's settings through the tables (MbsSettingTable,
# MbsSettingList), never through a formulation's own header
forms=$(echo "$edges" | awk 'index($1, "ui/") == 1 && $3 ~ /^form_/ {print $1, "->", $3}')
[ -z "$forms" ] && ok "ui/ includes no formulation header (form_*.h)" ||
  notok "ui/ includes formulation headers" "$forms"

# the rooms of engine/
bad=$(echo "$edges" | awk -v R="$RULES" -v D="$DEBTS" '
  BEGIN { n = split(R, rl, "\n")
          for (i = 1; i <= n; i++) { if (rl[i] !~ /: ?/) continue
            room = rl[i]; sub(/: .*|:$/, "", room); rest = rl[i]; sub(/^[^ ]*:/, "", rest)
            m = split(rest, al, " "); for (j = 1; j <= m; j++) allow[room, al[j]] = 1 }
          n = split(D, dl, "\n"); for (i = 1; i <= n; i++) debt[dl[i]] = 1 }
  index($1, "engine/") == 1 {
    room = $1; sub(/\/[^\/]*$/, "", room)
    if ($2 == room || allow[room, $2] || (allow[room, "kernels:" $3] && $2 == "engine/kernels"))
      next
    if (($1 " -> " $3) in debt) next
    print $1, "->", $3, "(" $2 ")" }')
if [ -z "$bad" ]; then ok "every room of engine/ includes only the rooms its rule allows"
else notok "rooms of engine/ include what their rule does not allow" "$bad"; fi

# every debt is still there (a paid one is removed from the list)
stale=$(echo "$DEBTS" | while read -r f arrow h; do
  [ -z "$f" ] && continue
  grep -qE "#[[:space:]]*include[[:space:]]*\"([^\"]*/)?$h\"" "$f" 2>/dev/null || echo "$f -> $h"
done)
[ -z "$stale" ] && ok "every listed back-arrow still exists" ||
  notok "back-arrows listed but gone (remove them from DEBTS)" "$stale"

# the check sees rooms (a rule table that matches nothing proves nothing)
rooms=$(echo "$RULES" | awk -F: 'NF > 1 {print $1}' | while read -r r; do [ -d "$r" ] && echo "$r"; done | wc -l)
[ "$rooms" -ge 10 ] && ok "the rules name $rooms rooms that exist" ||
  notok "the rules name only $rooms existing rooms"
echo "1..$n"
