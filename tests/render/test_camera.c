/* Fit View (render/esl-renderer.c, esl_camera_fit_box): a box is framed in the viewport's aspect
 * ratio — every corner inside the picture, and the picture filled along one of its sides to
 * 85 % at least (the margin is 8 %; perspective makes the picture off-centre, which the fit
 * corrects by moving the target) — for wide, square and tall viewports and several view directions; a wide
 * mechanism is seen from closer in a wide viewport than in a tall one. GL-free. */
#include <math.h>

#include "esl-renderer.h"
#include "tap.h"

/* Fraction of the picture the box's projection spans along its fuller side; -1 when a corner is
 * outside the picture (or behind the eye). */
static double filled(const EslCamera *c, int w, int h, const float lo[3], const float hi[3])
{
    float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int corner = 0; corner < 8; corner++) {
        float p[3], px[2];
        for (int k = 0; k < 3; k++)
            p[k] = (corner >> k) & 1 ? hi[k] : lo[k];
        if (!esl_camera_project(c, w, h, p, px) || px[0] < -0.5f || px[0] > w + 0.5f ||
            px[1] < -0.5f || px[1] > h + 0.5f)
            return -1;
        x0 = fminf(x0, px[0]);
        x1 = fmaxf(x1, px[0]);
        y0 = fminf(y0, px[1]);
        y1 = fmaxf(y1, px[1]);
    }
    return fmax((x1 - x0) / w, (y1 - y0) / h);
}

int main(void)
{
    const float lo[3] = {-2.0f, -0.4f, -0.3f}, hi[3] = {3.0f, 0.6f, 0.5f}; /* a long mechanism */
    const int sizes[][2] = {{1600, 600}, {800, 800}, {500, 1000}};
    const float views[][2] = {{-1.14f, 0.45f}, {-1.5707f, 0.0f}, {0.3f, -0.6f}, {2.5f, 1.2f}};
    float distance[3] = {0};
    for (int s = 0; s < 3; s++)
        for (int v = 0; v < 4; v++) {
            EslCamera c = {.yaw = views[v][0], .pitch = views[v][1], .up = {0, 0, 1},
                           .fov = 35.0f * (float)M_PI / 180.0f, .distance = 100.0f};
            int w = sizes[s][0], h = sizes[s][1];
            esl_camera_fit_box(&c, lo, hi, (float)w / (float)h);
            double f = filled(&c, w, h, lo, hi);
            tap_ok(f >= 0.85 && f <= 1.0,
                   "%dx%d, view %d: every corner in the picture, which it fills to %.2f", w, h, v,
                   f);
            if (v == 1)
                distance[s] = c.distance;
        }
    /* seen from the front, the box is 5 m wide and 0.8 m tall */
    tap_ok(distance[0] < 0.6f * distance[2],
           "a wide mechanism is framed from closer in a wide viewport (%.2f m) than in a tall "
           "one (%.2f m)", distance[0], distance[2]);
    EslCamera point = {.yaw = 0.3f, .pitch = 0.2f, .up = {0, 0, 1}, .fov = 0.6f};
    const float p[3] = {1, 2, 3};
    esl_camera_fit_box(&point, p, p, 1.0f);
    tap_ok(point.distance > 0 && fabsf(point.target[1] - 2.0f) < 1e-6f, "a single point gets a distance");
    return tap_done();
}
