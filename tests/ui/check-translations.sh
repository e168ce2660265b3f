#!/bin/sh
# Every translatable string of the GUI has a Spanish translation: extract the strings from
# po/POTFILES.in and compare with po/es.po (msgcmp fails on any missing one). Prints TAP.
# usage: check-translations.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..2"
grep -v '^#' po/POTFILES.in > "$tmp/files"
if xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=MBS_N_ --keyword=ngettext:1,2 \
    --files-from="$tmp/files" -o "$tmp/eslabon.pot" 2>"$tmp/err"; then
  echo "ok 1 - strings extracted"
else
  echo "not ok 1 - xgettext failed"; sed 's/^/# /' "$tmp/err"
fi
if msgfmt --check -o /dev/null po/es.po 2>"$tmp/err" && msgcmp po/es.po "$tmp/eslabon.pot" 2>>"$tmp/err"; then
  echo "ok 2 - po/es.po is valid and translates every string"
else
  echo "not ok 2 - po/es.po is incomplete or invalid"; sed 's/^/# /' "$tmp/err"
fi
