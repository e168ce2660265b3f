/* Generators of parametric model files. */
#ifndef ESL_GENERATE_H
#define ESL_GENERATE_H

#include <glib.h>

G_BEGIN_DECLS

#define ESL_GENERATE_MAX_CELLS 200

/* The multiple four-bar linkage of paper 000 (Callejo et al. 2014): ny x nz quadrilaterals of
 * 1 m, 1 kg slender bars in the YZ plane, hanging from ground joints along the top row, joined
 * by revolute joints about X; initial uniform shear at pi/3 rad/s. Returns the model file text
 * (g_free), or NULL if ny or nz is outside 1..ESL_GENERATE_MAX_CELLS. */
char *esl_generate_multi_four_bar(int ny, int nz);

G_END_DECLS

#endif
