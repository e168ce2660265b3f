/* The wheel's contact, written once over a scalar type and compiled twice by force_wheel.c
 * (over double, and over dual numbers for the ad tangent and the element's derivative). No
 * include guard: the includer defines WS (the scalar type) and WK(name).
 *
 * Geometry (Pacejka, Tire and Vehicle Dynamics, 3rd ed., §4.2): with the road's unit normal n
 * under the centre r and the spin axis a, the contact frame is x = a x n / |a x n| (forward),
 * y = n x x, z = n; d = a x x points from the centre down the wheel plane; the road plane
 * through p0 = (r_x, r_y, h) meets the ray r + rho d at rho = (p0 - r).n / d.n, the loaded
 * radius, so the deflection is R0 - rho, and the camber gamma = atan2(a.n, |a x n|). The height
 * and the normal of the road are taken at (r_x, r_y) and carried to first order in the position
 * (their gradient and curvature), which is all that derivatives need.
 */

/* a + b (x - x0): a value known at x0 carried with x's derivative */
static WS WK(carry)(double a, double b, WS x, double x0)
{
    return MBS_ADD(MBS_LIKE(x, a), MBS_SCALE(b, MBS_SUBC(x, x0)));
}

/* The contact of wheel f at centre r (velocity v), spin axis a, angular velocity w: the force
 * and the torque about the centre (0 off the road), the deflection (*delta, 0 off the road) and
 * what the law read and gave (info, may be NULL). Returns 1 in contact. */
static int WK(contact)(const MbsForce *f, const MbsRoad *road, const WS r[3], const WS v[3],
                       const WS axis[3], const WS w[3], WS force[3], WS torque[3], WS *delta,
                       MbsWheelInfo *info)
{
    WS a[3], al = MBS_V3_NORM(axis); /* the model keeps the axis as given: made unit here */
    for (int i = 0; i < 3; ++i)
        a[i] = MBS_DIV(axis[i], al);
    WS zero = MBS_LIKE(r[0], 0.0);
    for (int i = 0; i < 3; ++i)
        force[i] = torque[i] = zero;
    *delta = zero;
    if (info)
        memset(info, 0, sizeof *info);
    if (!road)
        return 0;
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    const MbsTyreData *data = wheel_data(f);
    double R0, k, c;
    law->vertical(data, wheel_scale(f), &R0, &k, &c);
    MbsRoadPoint rp;
    double x0 = MBS_VALUE(r[0]), y0 = MBS_VALUE(r[1]);
    mbs_road_eval(road, x0, y0, &rp);
    WS h = MBS_ADD(WK(carry)(rp.height, rp.gradient[0], r[0], x0),
                   MBS_SCALE(rp.gradient[1], MBS_SUBC(r[1], y0)));
    WS n[3];
    if (rp.limited) { /* a steep flank: the normal held at the limited slope */
        for (int i = 0; i < 3; ++i)
            n[i] = MBS_LIKE(r[0], rp.normal[i]);
    } else {
        WS gx = MBS_ADD(WK(carry)(rp.gradient[0], rp.hessian[0], r[0], x0),
                        MBS_SCALE(rp.hessian[1], MBS_SUBC(r[1], y0)));
        WS gy = MBS_ADD(WK(carry)(rp.gradient[1], rp.hessian[1], r[0], x0),
                        MBS_SCALE(rp.hessian[2], MBS_SUBC(r[1], y0)));
        WS ns = MBS_SQRT(MBS_ADDC(MBS_ADD(MBS_MUL(gx, gx), MBS_MUL(gy, gy)), 1.0));
        n[0] = MBS_NEG(MBS_DIV(gx, ns));
        n[1] = MBS_NEG(MBS_DIV(gy, ns));
        n[2] = MBS_DIV(MBS_LIKE(ns, 1.0), ns);
    }
    WS x[3], y[3], d[3];
    MBS_V3_CROSS(a, n, x);
    WS xl = MBS_V3_NORM(x);
    if (!(MBS_VALUE(xl) > 1e-6))
        return 0; /* the wheel lies flat on the road */
    for (int i = 0; i < 3; ++i)
        x[i] = MBS_DIV(x[i], xl);
    MBS_V3_CROSS(n, x, y);
    MBS_V3_CROSS(a, x, d);
    WS dn = MBS_V3_DOT(d, n);
    if (!(MBS_VALUE(dn) < -1e-3))
        return 0;
    WS rho = MBS_DIV(MBS_MUL(MBS_SUB(h, r[2]), n[2]), dn);
    WS del = MBS_CSUB(R0, rho);
    if (!(MBS_VALUE(del) > 0.0))
        return 0; /* off the road */
    *delta = del;
    /* The material point of the wheel at the contact: arm rho d from the centre. */
    WS arm[3], wa[3], vp[3];
    for (int i = 0; i < 3; ++i)
        arm[i] = MBS_MUL(rho, d[i]);
    MBS_V3_CROSS(w, arm, wa);
    MBS_V3_ADD(v, wa, vp);
    /* Vertical load: k delta + c delta', delta' = -vp.n (the approach of that point), never
     * pulling. */
    WS fz = MBS_SUB(MBS_SCALE(k, del), MBS_SCALE(c, MBS_V3_DOT(vp, n)));
    if (info)
        info->delta = MBS_VALUE(del);
    if (!(MBS_VALUE(fz) > 0.0))
        return 1;
    WS ins[MBS_TYRE_IN_COUNT];
    ins[MBS_TYRE_IN_FZ] = fz;
    ins[MBS_TYRE_IN_VX] = MBS_V3_DOT(v, x);
    ins[MBS_TYRE_IN_VY] = MBS_V3_DOT(vp, y);
    ins[MBS_TYRE_IN_OMEGA] = MBS_V3_DOT(w, a);
    ins[MBS_TYRE_IN_GAMMA] = MBS_ATAN2(MBS_V3_DOT(a, n), xl);
    MbsTyreInput tin = {.mu_scale = rp.mu, .scale = wheel_scale(f)};
    MbsTyreOutput tout;
    MbsTyreDerivative td;
    for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
        tin.in[j] = MBS_VALUE(ins[j]);
    mbs_tyre_evaluate(law, data, f->tyre_mirror, &tin, &tout, &td);
    /* The law's outputs carried with its inputs' derivatives (chain rule through d out/d in). */
    WS o[MBS_TYRE_OUT_COUNT];
    for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
        o[i] = MBS_LIKE(r[0], tout.out[i]);
        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
            if (td.d[i][j] != 0.0)
                o[i] = MBS_ADD(o[i], MBS_SCALE(td.d[i][j], MBS_SUBC(ins[j], tin.in[j])));
    }
    WS mc[3], af[3];
    for (int i = 0; i < 3; ++i) {
        force[i] = MBS_ADD(MBS_ADD(MBS_MUL(o[MBS_TYRE_OUT_FX], x[i]),
                                   MBS_MUL(o[MBS_TYRE_OUT_FY], y[i])),
                           MBS_MUL(fz, n[i]));
        mc[i] = MBS_ADD(MBS_ADD(MBS_MUL(o[MBS_TYRE_OUT_MX], x[i]),
                                MBS_MUL(o[MBS_TYRE_OUT_MY], y[i])),
                        MBS_MUL(o[MBS_TYRE_OUT_MZ], n[i]));
    }
    MBS_V3_CROSS(arm, force, af); /* the wrench moved from the contact point to the centre */
    MBS_V3_ADD(mc, af, torque);
    if (info) {
        info->fz = tin.in[MBS_TYRE_IN_FZ];
        info->fx = tout.out[MBS_TYRE_OUT_FX];
        info->fy = tout.out[MBS_TYRE_OUT_FY];
        info->mz = tout.out[MBS_TYRE_OUT_MZ];
        info->kappa = tout.kappa;
        info->alpha = tout.alpha;
        info->vsx = MBS_VALUE(MBS_V3_DOT(vp, x));
        info->gamma = tin.in[MBS_TYRE_IN_GAMMA];
    }
    return 1;
}
