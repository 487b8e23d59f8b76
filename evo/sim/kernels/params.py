"""The kernels' parameters, one way for every kernel: a float64 array ``fp`` and an int64 array ``ip`` with
the named indices below (built once per call by :func:`evo.sim.simulate.kernel_params`)."""

from __future__ import annotations

# float parameters
(F_GX, F_GY, F_DAMPING, F_CN, F_CT, F_DT, F_XMIN, F_XMAX, F_YMAX, F_MAX_SPEED2, F_OMEGA, F_THETA0, F_SIGN,
 F_GROUND_K, F_MU, F_SLIP, F_NEWTON_TOL, F_STIFFNESS) = range(18)  # fmt: skip
N_FLOAT_PARAMS = 18
# int parameters
I_STEPS, I_STRIDE, I_AUTOREVERSE, I_METHOD, I_PENALTY, I_GROUND, I_PSM_ORDER, I_NEWTON_ITERATIONS = range(8)
N_INT_PARAMS = 8
