/* Independent reference for the double pendulum of two uniform bars (1 kg, 1 m, about X):
 * its Lagrange equations in absolute angles, written by hand, integrated with classical RK4. */
#ifndef PENDULUM_REFERENCE_H
#define PENDULUM_REFERENCE_H

#include <math.h>

/* [4/3, c/2; c/2, 1/3] phidd = [-s/2 w2^2 - 3/2 g sin p1; s/2 w1^2 - g/2 sin p2],
 * c = cos(p1 - p2), s = sin(p1 - p2); y = [p1, p2, w1, w2]. */
static void pendulum_rhs(const double y[4], double dy[4])
{
    const double g = 9.81;
    double c = cos(y[0] - y[1]), s = sin(y[0] - y[1]);
    double a11 = 4.0 / 3.0, a12 = 0.5 * c, a22 = 1.0 / 3.0;
    double b1 = -0.5 * s * y[3] * y[3] - 1.5 * g * sin(y[0]);
    double b2 = 0.5 * s * y[2] * y[2] - 0.5 * g * sin(y[1]);
    double det = a11 * a22 - a12 * a12;
    dy[0] = y[2];
    dy[1] = y[3];
    dy[2] = (a22 * b1 - a12 * b2) / det;
    dy[3] = (a11 * b2 - a12 * b1) / det;
}

/* Angles after `duration` from rest at (theta1, theta2), RK4 with step h. */
__attribute__((unused)) static void pendulum_rk4(double theta1, double theta2, double duration,
                                                 double h, double out[2])
{
    double y[4] = {theta1, theta2, 0, 0}, k1[4], k2[4], k3[4], k4[4], t[4];
    int steps = (int)(duration / h + 0.5);
    for (int i = 0; i < steps; ++i) {
        pendulum_rhs(y, k1);
        for (int c = 0; c < 4; ++c) t[c] = y[c] + 0.5 * h * k1[c];
        pendulum_rhs(t, k2);
        for (int c = 0; c < 4; ++c) t[c] = y[c] + 0.5 * h * k2[c];
        pendulum_rhs(t, k3);
        for (int c = 0; c < 4; ++c) t[c] = y[c] + h * k3[c];
        pendulum_rhs(t, k4);
        for (int c = 0; c < 4; ++c) y[c] += h / 6.0 * (k1[c] + 2 * k2[c] + 2 * k3[c] + k4[c]);
    }
    out[0] = y[0];
    out[1] = y[1];
}

#endif
