/* Numbers in entries (ui/esl-number.c): written with the locale's decimal separator (a comma
 * in Spanish), read back with a comma or a point, and the shortest text that reads back as
 * the stored value. No display needed. */
#include <math.h>

#include "esl-number.h"
#include "tap.h"

int main(void)
{
    g_autofree char *comma = esl_number_to_text(0.0025, 0, ",");
    tap_ok(g_str_equal(comma, "0,0025"), "a decimal comma where the locale has one: %s", comma);
    g_autofree char *point = esl_number_to_text(0.0025, 0, ".");
    tap_ok(g_str_equal(point, "0.0025"), "a point where the locale has one: %s", point);
    g_autofree char *third = esl_number_to_text(1.0 / 300, 0, ",");
    double back = 0;
    tap_ok(esl_number_from_text(third, &back) && back == 1.0 / 300,
           "1/300 is written with all its digits and reads back exactly: %s", third);
    g_autofree char *ten = esl_number_to_text(2.0 / 3, 10, ",");
    tap_ok(g_str_equal(ten, "0,6666666667"), "10 significant digits: %s", ten);
    g_autofree char *big = esl_number_to_text(1e9, 0, ",");
    tap_ok(g_str_equal(big, "1e+09"), "no separator to replace: %s", big);
    double v = 0;
    tap_ok(esl_number_from_text(" 1,5 ", &v) && v == 1.5, "a comma is read");
    tap_ok(esl_number_from_text("-2.5e-3", &v) && v == -2.5e-3, "a point is read");
    tap_ok(!esl_number_from_text("1,5 kg", &v) && !esl_number_from_text("", &v) &&
               !esl_number_from_text("nan", &v) && !esl_number_from_text("1e999", &v),
           "text that is not a finite number is refused");
    return tap_done();
}
