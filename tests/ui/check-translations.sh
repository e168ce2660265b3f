#!/bin/sh
# Every translatable string of the GUI has a Spanish translation: extract the strings from
# po/POTFILES.in and compare with po/es.po (msgcmp fails on any missing, empty or fuzzy one);
# every source of app/, ui/ and engine/ that marks strings is listed in po/POTFILES.in (else
# xgettext never sees its strings); and the model loader's and editor's error calls pass their
# message through _() (an unmarked English literal fails). Prints TAP.
# usage: check-translations.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..4"
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

# 3: a file that marks strings but is missing from POTFILES.in would ship untranslated.
unlisted=$(grep -lE '(^|[^A-Za-z_])(_|N_|C_|NC_|MBS_N_|ngettext)\(' $(find app ui engine -name '*.c' | sort) 2>/dev/null |
           grep -vxFf "$tmp/files")
if [ -z "$unlisted" ]; then
  echo "ok 3 - every source that marks strings is in po/POTFILES.in"
else
  echo "not ok 3 - sources that mark strings but are not in po/POTFILES.in"
  echo "$unlisted" | sed 's/^/# /'
fi
# 4: the first literal of every fail()/fail_code()/g_set_error() call in the model loader,
# builder, editors and point export must be wrapped in _() when it has words in it.
unmarked=$(perl -0777 -ne 'while (/\b(fail|fail_code|g_set_error)\s*\(([^;]*?);/sg) {
    my $args = $2; my $at = substr($_, 0, pos($_)) =~ tr/\n//;
    next if $args =~ /\b_\(/;
    my ($literal) = $args =~ /^[^"]*"((?:[^"\\]|\\.)*)"/s;
    print "$ARGV:", $at + 1, ": \"$literal\"\n" if defined $literal && $literal =~ /[A-Za-z]{3}/;
  }' app/model/esl-model-file.c app/model/esl-model-build.c app/model/esl-model-edit.c app/model/esl-objective-edit.c \
    app/model/esl-edit-json.c app/model/esl-points.c)
if [ -z "$unmarked" ]; then
  echo "ok 4 - the model loader's error messages are marked for translation"
else
  echo "not ok 4 - unmarked error messages"
  echo "$unmarked" | sed 's/^/# /'
fi
