#!/usr/bin/env python3
"""The direct methods' cheaper state tangents against the whole-residual differences they
replace (issue 10): penalty's analytical derivatives of Q - M zdd plus differences of
Phi_z^T lambda (engine/sens_penalty.c) against central differences of the whole frozen residual
(--jacobian nd-central); ali3p's tangent by parts (engine/sens_ali3p.c) against forward
differences of the whole residual (--jacobian nd-forward); the slider-crank's driver takes
ali3p's per-step path for the constraints' second derivatives, the other two the stored one. A missing or wrong term of the
tangent changes the gradients at order one; the bounds are the differences' own error
(measured: penalty 3.7e-8 five-bar, 8e-12 slider-crank, 1.6e-6 spatial four-bar at
alpha = 1e7; ali3p 2.0e-7, 1.7e-11, 1.8e-10) times a margin. Prints TAP."""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_tap import ok, sens, worst_relative, done  # noqa: E402

cases = [("five-bar.json", ["--step", "0.01", "--duration", "5"]),
         ("slider-crank.json", ["--step", "0.002", "--duration", "1"]),
         ("four-bar-spatial.json", ["--step", "0.002", "--duration", "1", "--alpha", "1e7"])]
bounds = {("penalty", "five-bar.json"): 1e-6, ("penalty", "slider-crank.json"): 1e-8,
          ("penalty", "four-bar-spatial.json"): 2e-5, ("ali3p", "five-bar.json"): 2e-6,
          ("ali3p", "slider-crank.json"): 1e-8, ("ali3p", "four-bar-spatial.json"): 1e-8}
for formulation, whole in [("penalty", "nd-central"), ("ali3p", "nd-forward")]:
    for model, args in cases:
        ra, fast = sens(model, "--formulation", formulation, "--method", "direct", *args)
        rb, ref = sens(model, "--formulation", formulation, "--method", "direct",
                       "--jacobian", whole, *args)
        if not ok(ra.returncode == 0 and rb.returncode == 0,
                  f"{formulation} {model}: both tangents run " + ra.stderr + rb.stderr):
            continue
        scale = max(abs(v) for row in ref["gradient"] for v in row)
        err = worst_relative(fast["gradient"], ref["gradient"], 1e-9 * scale)
        bound = bounds[(formulation, model)]
        ok(err < bound, f"{formulation} {model}: direct gradient with the cheaper tangent "
           f"within {bound:g} of {whole} of the whole residual (worst relative {err:.2e})")
done()
