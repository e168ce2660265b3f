/* The spring natural lengths that hold models/five-bar.json still in its drawn position, from
 * statics alone (an independent reference for the optimiser, which finds them by minimising
 * psi1 = int |r2 - r20|^2 over whole simulations): the gradient of the potential (gravity on
 * each bar's centre, the two springs from B) must lie in the span of the four bar-length
 * constraints' gradients, 6 linear equations in Ls1, Ls2 and four multipliers. */
#ifndef FIVE_BAR_STATICS_H
#define FIVE_BAR_STATICS_H

#include <math.h>

static void five_bar_still_lengths(double *ls1, double *ls2)
{
    const double k = 100.0, g = 9.81, A[2] = {0, 0}, B[2] = {1, 0};
    const double p[3][2] = {{-1, -1}, {0.5, -2}, {2, -1}}; /* joints 1, 2, 3 */
    double M[6][7] = {{0}};                                  /* columns Ls1, Ls2, 4 multipliers | rhs */
    /* gravity: bars A1, 12, 23, 3B of 1, 1.5, 1.5, 1 kg, centres at their middles */
    M[1][6] = -g * (1.0 + 1.5) / 2;
    M[3][6] = -g * (1.5 + 1.5) / 2;
    M[5][6] = -g * (1.5 + 1.0) / 2;
    for (int s = 0; s < 2; ++s) { /* spring s from B to joint s+1: k (L - Ls) (p - B)/L */
        double d[2] = {p[s][0] - B[0], p[s][1] - B[1]}, L = hypot(d[0], d[1]);
        for (int c = 0; c < 2; ++c) {
            M[2 * s + c][6] -= k * d[c];
            M[2 * s + c][s] = -k * d[c] / L;
        }
    }
    /* constraint gradients (halved squared lengths): A-1, 1-2, 2-3, 3-B */
    for (int c = 0; c < 2; ++c) {
        double d0 = p[0][c] - A[c], d1 = p[1][c] - p[0][c], d2 = p[2][c] - p[1][c],
               d3 = p[2][c] - B[c];
        M[c][2] -= d0;
        M[c][3] += d1, M[2 + c][3] -= d1;
        M[2 + c][4] += d2, M[4 + c][4] -= d2;
        M[4 + c][5] -= d3;
    }
    for (int c = 0; c < 6; ++c) { /* Gauss-Jordan with partial pivoting */
        int piv = c;
        for (int r = c + 1; r < 6; ++r)
            if (fabs(M[r][c]) > fabs(M[piv][c]))
                piv = r;
        for (int j = 0; j < 7; ++j) {
            double t = M[c][j];
            M[c][j] = M[piv][j], M[piv][j] = t;
        }
        for (int r = 0; r < 6; ++r)
            if (r != c) {
                double f = M[r][c] / M[c][c];
                for (int j = 0; j < 7; ++j)
                    M[r][j] -= f * M[c][j];
            }
    }
    *ls1 = M[0][6] / M[0][0];
    *ls2 = M[1][6] / M[1][1];
}

#endif
