/* The PAC2002 law written once over a scalar type (included three times by tyre_pac2002.c: with
 * PAC_S = double for the value, with PAC_S = MbsDual for the exact forward-mode derivative with
 * respect to the inputs, and with the scaling factors dual too (PAC_L = MbsDual) for the
 * derivative with respect to them). The scaling factors lambda (the .tir file's times the
 * wheel's multipliers) are of type PAC_L: PAC_LS(l, s) is l s (an S), PAC_L2S(x, l) l as an S
 * like x, PAC_LC(c) a constant as an L; over PAC_L = double they are the plain operations, so
 * the value and the input derivative are computed as before the factors were parameters.
 * Equations: Pacejka, Tire and Vehicle Dynamics, 3rd ed., ch. 4, §4.3.2 (Magic Formula 5.2 /
 * PAC2002, steady state, combined slip); each line names the quantity of the book.
 * docs/formulations.md § Tyres: Magic Formula 5.2 lists them and the choices made here. */

#define S PAC_S
#define F(name) PAC_SUFFIX(name)

/* a + b x */
static inline S F(lin)(double a, double b, S x) { return MBS_ADDC(MBS_SCALE(b, x), a); }
/* a + b x + c x^2 */
static inline S F(quad)(double a, double b, double c, S x)
{
    return MBS_ADDC(MBS_MUL(x, MBS_ADDC(MBS_SCALE(c, x), b)), a);
}
/* E <= 1 (Pacejka §4.3.2: the curvature factor may not exceed 1) */
static inline S F(cap1)(S e) { return MBS_VALUE(e) > 1.0 ? MBS_LIKE(e, 1.0) : e; }
/* x kept away from 0 by tiny (keeping its sign), for the degenerate loads at which a peak
 * factor D or a stiffness K vanishes: B = K / (C D) stays finite and D sin(...) ~ 0. */
static inline S F(away0)(S x, double tiny)
{
    double v = MBS_VALUE(x);
    return fabs(v) >= tiny ? x : MBS_LIKE(x, v < 0.0 ? -tiny : tiny);
}
/* The Magic Formula's argument B x - E (B x - atan(B x)). */
static inline S F(mf_arg)(S b, S x, S e)
{
    S bx = MBS_MUL(b, x);
    return MBS_SUB(bx, MBS_MUL(e, MBS_SUB(bx, MBS_ATAN(bx))));
}
/* D sin(C atan(B x - E (B x - atan B x))) */
static inline S F(mf_sin)(S d, PAC_L c, S b, S x, S e)
{
    return MBS_MUL(d, MBS_SIN(PAC_LS(c, MBS_ATAN(F(mf_arg)(b, x, e)))));
}
/* cos(C atan(B x - E (B x - atan B x))) */
static inline S F(mf_cos)(PAC_L c, S b, S x, S e)
{
    return MBS_COS(PAC_LS(c, MBS_ATAN(F(mf_arg)(b, x, e))));
}
static inline double F(sgn)(S x) { return MBS_VALUE(x) < 0.0 ? -1.0 : 1.0; }

/* lam: the scaling factors, indexed by MBS_TIR_SCALE_* (mbs_tir.h) */
static void F(pac2002_law)(const struct MbsTyreData *data, const PAC_L *lam,
                           const S in[MBS_TYRE_IN_COUNT], double mu, S out[MBS_TYRE_OUT_COUNT],
                           S *kappa_out, S *alpha_out)
{
#define LAM(n) lam[MBS_TIR_SCALE_##n]
    const MbsTir *t = &data->tir;
    S fz = in[MBS_TYRE_IN_FZ], vx = in[MBS_TYRE_IN_VX], vy = in[MBS_TYRE_IN_VY];
    S omega = in[MBS_TYRE_IN_OMEGA], gamma = in[MBS_TYRE_IN_GAMMA];
    const double r0 = t->UNLOADED_RADIUS, vlow = t->VXLOW;
    const PAC_L fz0 = MBS_SCALE(t->FNOMIN, LAM(LFZO));     /* F'z0 = Fz0 LFZO (4.E1) */
    const PAC_L cz = MBS_SCALE(t->VERTICAL_STIFFNESS, LAM(LCZ));
    const double tiny = 1e-12 * MBS_VALUE(fz0);
    /* road friction: lambda_mu */
    const PAC_L lmux = MBS_SCALE(mu, LAM(LMUX)), lmuy = MBS_SCALE(mu, LAM(LMUY));

    /* Effective rolling radius (PAC2002): Re = R0 - (Fz0/Cz)(D atan(B rho) + F rho),
     * rho = Fz/Fz0 with Fz0 = FNOMIN. */
    S rho = MBS_SCALE(1.0 / t->FNOMIN, fz);
    S re = MBS_CSUB(r0, PAC_LS(MBS_DIV(MBS_LIKE(cz, t->FNOMIN), cz),
                                  MBS_ADD(MBS_SCALE(t->DREFF, MBS_ATAN(MBS_SCALE(t->BREFF, rho))),
                                          MBS_SCALE(t->FREFF, rho))));

    /* Low speed (docs/formulations.md): the slips' denominator |Vcx| becomes
     * (Vcx^2 + VXLOW^2) / (2 VXLOW) below VXLOW (C1 at VXLOW, VXLOW/2 at rest), so the slips are
     * slip velocities over a finite speed and the force acts as a damper at rest; the shifts
     * SHx, SHy, SVx, SVy are faded out by r = (1 - cos(pi Vcx / VXLOW)) / 2 so a tyre at rest with
     * no slip velocity pulls nothing; rolling resistance takes the smooth sign
     * sin(pi/2 Vcx / VXLOW). */
    double avx = fabs(MBS_VALUE(vx));
    S vd, r, rsign;
    if (avx >= vlow) {
        vd = MBS_FABS(vx);
        r = MBS_LIKE(vx, 1.0);
        rsign = MBS_LIKE(vx, MBS_VALUE(vx) < 0.0 ? -1.0 : 1.0);
    } else {
        vd = MBS_SCALE(0.5 / vlow, MBS_ADDC(MBS_MUL(vx, vx), vlow * vlow));
        r = MBS_SCALE(0.5, MBS_CSUB(1.0, MBS_COS(MBS_SCALE(M_PI / vlow, vx))));
        rsign = MBS_SIN(MBS_SCALE(0.5 * M_PI / vlow, vx));
    }
    /* kappa = -Vsx / |Vcx| with Vsx = Vcx - Omega Re; tan(alpha) = Vcy / |Vcx| (the .tir files'
     * sign: with their PKY1 < 0, Fy opposes the contact point's lateral velocity). */
    S kappa = MBS_DIV(MBS_SUB(MBS_MUL(omega, re), vx), vd);
    S alpha = MBS_ATAN(MBS_DIV(vy, vd));
    /* cos'(alpha) = Vcx / Vc' (Pacejka 4.E6), with Vc' = sqrt(Vd^2 + Vcy^2) > 0 */
    S cosa = MBS_DIV(vx, MBS_SQRT(MBS_ADD(MBS_MUL(vd, vd), MBS_MUL(vy, vy))));
    *kappa_out = kappa;
    *alpha_out = alpha;
    if (MBS_VALUE(fz) <= 0.0) {
        for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i)
            out[i] = MBS_LIKE(fz, 0.0);
        return;
    }

    S dfz = PAC_LS(MBS_DIV(MBS_LIKE(fz0, 1.0), fz0), MBS_SUB(fz, PAC_L2S(fz, fz0))); /* (4.E2a) */
    S gx = PAC_LS(LAM(LGAX), gamma), gy = PAC_LS(LAM(LGAY), gamma);
    S gz = PAC_LS(LAM(LGAZ), gamma);

    /* Pure longitudinal slip (4.E9-4.E18) */
    S shx = MBS_MUL(r, PAC_LS(LAM(LHX), F(lin)(t->PHX1, t->PHX2, dfz)));
    S kx = MBS_ADD(kappa, shx);
    const PAC_L cx = MBS_SCALE(t->PCX1, LAM(LCX));
    S mux = PAC_LS(lmux, MBS_MUL(F(lin)(t->PDX1, t->PDX2, dfz),
                                    MBS_CSUB(1.0, MBS_SCALE(t->PDX3, MBS_MUL(gx, gx)))));
    S dx = MBS_MUL(mux, fz);
    S ex = F(cap1)(PAC_LS(MBS_SCALE(1.0 - t->PEX4 * F(sgn)(kx), LAM(LEX)),
                             F(quad)(t->PEX1, t->PEX2, t->PEX3, dfz)));
    S kxk = PAC_LS(LAM(LKX), MBS_MUL(MBS_MUL(fz, F(lin)(t->PKX1, t->PKX2, dfz)),
                                      MBS_EXP(MBS_SCALE(t->PKX3, dfz))));
    S bx = MBS_DIV(kxk, PAC_LS(cx, F(away0)(dx, tiny)));
    S svx = MBS_MUL(r, PAC_LS(MBS_MUL(LAM(LVX), lmux), MBS_MUL(fz, F(lin)(t->PVX1, t->PVX2, dfz))));
    S fx0 = MBS_ADD(F(mf_sin)(dx, cx, bx, kx, ex), svx);

    /* Pure lateral slip (4.E19-4.E30) */
    S shy = MBS_MUL(r, MBS_ADD(PAC_LS(LAM(LHY), F(lin)(t->PHY1, t->PHY2, dfz)),
                               MBS_SCALE(t->PHY3, gy)));
    S svy = MBS_MUL(r, PAC_LS(lmuy, MBS_MUL(fz, MBS_ADD(PAC_LS(LAM(LVY), F(lin)(t->PVY1, t->PVY2, dfz)),
                                                            MBS_MUL(F(lin)(t->PVY3, t->PVY4, dfz), gy)))));
    S ay = MBS_ADD(alpha, shy);
    const PAC_L cy = MBS_SCALE(t->PCY1, LAM(LCY));
    S muy = PAC_LS(lmuy, MBS_MUL(F(lin)(t->PDY1, t->PDY2, dfz),
                                    MBS_CSUB(1.0, MBS_SCALE(t->PDY3, MBS_MUL(gy, gy)))));
    S dy = MBS_MUL(muy, fz);
    S ey = F(cap1)(PAC_LS(LAM(LEY), MBS_MUL(F(lin)(t->PEY1, t->PEY2, dfz),
                                             MBS_CSUB(1.0, MBS_SCALE(F(sgn)(ay),
                                                                     F(lin)(t->PEY3, t->PEY4, gy))))));
    S ky = PAC_LS(MBS_MUL(MBS_SCALE(t->PKY1, fz0), LAM(LKY)),
                  MBS_MUL(MBS_SIN(MBS_SCALE(2.0, MBS_ATAN(PAC_LS(MBS_DIV(MBS_LIKE(fz0, 1.0),
                                                                         MBS_SCALE(t->PKY2, fz0)),
                                                                  fz)))),
                             MBS_CSUB(1.0, MBS_SCALE(t->PKY3, MBS_FABS(gy)))));
    S kys = F(away0)(ky, tiny);
    S by = MBS_DIV(ky, PAC_LS(cy, F(away0)(dy, tiny)));
    S fy0 = MBS_ADD(F(mf_sin)(dy, cy, by, ay, ey), svy);

    /* Aligning torque, pure slip parts (4.E31-4.E49) */
    S sht = MBS_ADD(F(lin)(t->QHZ1, t->QHZ2, dfz), MBS_MUL(F(lin)(t->QHZ3, t->QHZ4, dfz), gz));
    S at = MBS_ADD(alpha, sht);
    S shf = MBS_ADD(shy, MBS_DIV(svy, kys));
    S ar = MBS_ADD(alpha, shf);
    S bt = PAC_LS(MBS_DIV(LAM(LKY), lmuy),
                     MBS_MUL(F(quad)(t->QBZ1, t->QBZ2, t->QBZ3, dfz),
                             MBS_ADDC(MBS_ADD(MBS_SCALE(t->QBZ4, gz), MBS_SCALE(t->QBZ5, MBS_FABS(gz))),
                                      1.0)));
    const double ct = t->QCZ1;
    S dt = PAC_LS(MBS_MUL(MBS_DIV(MBS_LIKE(fz0, r0), fz0), LAM(LTR)),
                     MBS_MUL(MBS_MUL(fz, F(lin)(t->QDZ1, t->QDZ2, dfz)),
                             F(quad)(1.0, t->QDZ3, t->QDZ4, gz)));
    S et = F(cap1)(MBS_MUL(F(quad)(t->QEZ1, t->QEZ2, t->QEZ3, dfz),
                           MBS_ADDC(MBS_MUL(F(lin)(t->QEZ4, t->QEZ5, gz),
                                            MBS_SCALE(2.0 / M_PI, MBS_ATAN(MBS_SCALE(ct, MBS_MUL(bt, at))))),
                                    1.0)));
    S br = MBS_ADD(PAC_L2S(fz, MBS_DIV(MBS_SCALE(t->QBZ9, LAM(LKY)), lmuy)),
                   PAC_LS(MBS_SCALE(t->QBZ10, cy), by));
    S dr = PAC_LS(MBS_SCALE(r0, lmuy), MBS_MUL(fz, MBS_ADD(PAC_LS(LAM(LRES), F(lin)(t->QDZ6, t->QDZ7, dfz)),
                                                     MBS_MUL(F(lin)(t->QDZ8, t->QDZ9, dfz), gz))));

    S fx, fy, fyp, at_eq, ar_eq, sfx;
    if (data->combined) {
        /* Combined slip, Fx (4.E50-4.E57) */
        S bxa = PAC_LS(MBS_SCALE(t->RBX1, LAM(LXAL)), MBS_COS(MBS_ATAN(MBS_SCALE(t->RBX2, kappa))));
        S exa = F(cap1)(F(lin)(t->REX1, t->REX2, dfz));
        S shxa = MBS_LIKE(fz, t->RHX1);
        S as = MBS_ADD(alpha, shxa);
        S gxa = MBS_DIV(F(mf_cos)(PAC_LC(t->RCX1), bxa, as, exa),
                        F(away0)(F(mf_cos)(PAC_LC(t->RCX1), bxa, shxa, exa), 1e-12));
        fx = MBS_MUL(gxa, fx0);
        /* Combined slip, Fy (4.E58-4.E67) */
        S dvyk = MBS_MUL(MBS_MUL(muy, fz),
                         MBS_MUL(MBS_ADD(F(lin)(t->RVY1, t->RVY2, dfz), MBS_SCALE(t->RVY3, gy)),
                                 MBS_COS(MBS_ATAN(MBS_SCALE(t->RVY4, alpha)))));
        S svyk = PAC_LS(LAM(LVYKA),
                           MBS_MUL(dvyk, MBS_SIN(MBS_SCALE(t->RVY5, MBS_ATAN(MBS_SCALE(t->RVY6, kappa))))));
        S shyk = F(lin)(t->RHY1, t->RHY2, dfz);
        S ks = MBS_ADD(kappa, shyk);
        S byk = PAC_LS(MBS_SCALE(t->RBY1, LAM(LYKA)), MBS_COS(MBS_ATAN(MBS_SCALE(t->RBY2, MBS_SUBC(alpha, t->RBY3)))));
        S eyk = F(cap1)(F(lin)(t->REY1, t->REY2, dfz));
        S gyk = MBS_DIV(F(mf_cos)(PAC_LC(t->RCY1), byk, ks, eyk),
                        F(away0)(F(mf_cos)(PAC_LC(t->RCY1), byk, shyk, eyk), 1e-12));
        fy = MBS_ADD(MBS_MUL(gyk, fy0), svyk);
        fyp = MBS_SUB(fy, svyk); /* F'y: without the kappa-induced side force (4.E74) */
        /* Equivalent slip angles (4.E77-4.E78, 3rd ed.: atan sqrt(tan^2 a + (Kx/Ky)^2 k^2)) */
        S kr = MBS_DIV(kxk, kys);
        S kk = MBS_MUL(MBS_MUL(kr, kr), MBS_MUL(kappa, kappa));
        S tt = MBS_DIV(MBS_SIN(at), MBS_COS(at)), tr = MBS_DIV(MBS_SIN(ar), MBS_COS(ar));
        S qt = MBS_ADD(MBS_MUL(tt, tt), kk), qr = MBS_ADD(MBS_MUL(tr, tr), kk);
        /* the cone's tip (both slips 0) has no derivative: take the pure-slip one there */
        at_eq = MBS_VALUE(qt) > 0.0 ? MBS_SCALE(F(sgn)(at), MBS_ATAN(MBS_SQRT(qt))) : at;
        ar_eq = MBS_VALUE(qr) > 0.0 ? MBS_SCALE(F(sgn)(ar), MBS_ATAN(MBS_SQRT(qr))) : ar;
        /* s = R0 (SSZ1 + SSZ2 Fy/Fz0' + (SSZ3 + SSZ4 dfz) gamma_z) LS (4.E76) */
        S s = PAC_LS(MBS_SCALE(r0, LAM(LS)),
                     MBS_ADD(MBS_ADDC(PAC_LS(MBS_DIV(MBS_LIKE(fz0, t->SSZ2), fz0), fy), t->SSZ1),
                                MBS_MUL(F(lin)(t->SSZ3, t->SSZ4, dfz), gz)));
        sfx = MBS_MUL(s, fx);
    } else {
        fx = fx0;
        fy = fy0;
        fyp = fy0;
        at_eq = at;
        ar_eq = ar;
        sfx = MBS_LIKE(fz, 0.0);
    }
    /* Mz = -t F'y + Mzr + s Fx (4.E71-4.E75) */
    S trail = MBS_MUL(MBS_MUL(dt, F(mf_cos)(PAC_LC(ct), bt, at_eq, et)), cosa);
    S mzr = MBS_MUL(MBS_MUL(dr, MBS_COS(MBS_ATAN(MBS_MUL(br, ar_eq)))), cosa);
    S mz = MBS_ADD(MBS_SUB(mzr, MBS_MUL(trail, fyp)), sfx);

    /* Mx = R0 Fz (QSX1 LVMX - QSX2 gamma + QSX3 Fy/Fz0) LMX (4.E69) */
    S mx = PAC_LS(MBS_SCALE(r0, LAM(LMX)),
                  MBS_MUL(fz, MBS_ADD(PAC_L2S(fz, MBS_SCALE(t->QSX1, LAM(LVMX))),
                                         MBS_SUB(MBS_SCALE(t->QSX3 / t->FNOMIN, fy),
                                                 MBS_SCALE(t->QSX2, gamma)))));
    /* My = -R0 Fz (QSY1 + QSY2 Fx/Fz0 + QSY3 |Vx/V0| + QSY4 (Vx/V0)^4
     *              + (QSY5 + QSY6 Fz/Fz0) gamma^2) LMY, opposing the rolling (4.E70) */
    S v = MBS_SCALE(1.0 / t->LONGVL, vx);
    S v2 = MBS_MUL(v, v);
    S roll = MBS_ADD(MBS_ADD(MBS_ADDC(MBS_SCALE(t->QSY2 / t->FNOMIN, fx), t->QSY1),
                             MBS_SCALE(t->QSY3, MBS_FABS(v))),
                     MBS_ADD(MBS_SCALE(t->QSY4, MBS_MUL(v2, v2)),
                             MBS_MUL(F(lin)(t->QSY5, t->QSY6 / t->FNOMIN, fz), MBS_MUL(gamma, gamma))));
    S my = PAC_LS(MBS_SCALE(-r0, LAM(LMY)), MBS_MUL(MBS_MUL(rsign, fz), roll));

    out[MBS_TYRE_OUT_FX] = fx;
    out[MBS_TYRE_OUT_FY] = fy;
    out[MBS_TYRE_OUT_MX] = mx;
    out[MBS_TYRE_OUT_MY] = my;
    out[MBS_TYRE_OUT_MZ] = mz;
#undef LAM
}

#undef S
#undef F
