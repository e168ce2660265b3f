/* Numbers in entries as the user's locale writes them (decimal comma in Spanish), read back
 * with either a comma or a point. Files (CSV, JSON) always use a point: not these. */
#ifndef ESL_NUMBER_H
#define ESL_NUMBER_H

#include <glib.h>

/* v with digits significant digits (0: the shortest of %g and %.17g that reads back as v),
 * with decimal_point (NULL: the locale's). Free with g_free. */
char *esl_number_to_text(double v, int digits, const char *decimal_point);
/* The finite number that is all of text (blanks around it allowed), written with a point, a
 * comma or the locale's decimal point; FALSE when text is not one. */
gboolean esl_number_from_text(const char *text, double *value);

#endif
