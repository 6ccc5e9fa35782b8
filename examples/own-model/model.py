"""The system of src/tea.c for the host's reference engine (uxemu), in the same operation order, so the
host can simulate it, fit it and check the device against it:

    uxhost simulate --model examples/own-model/model.py:tea --steps 100 --seed 1 -o tea.csv
"""

from uxemu import Kernel, Sampler, StateSpaceModel
from uxemu.laws import Normal


def tea(k=0.08, room=21.0, q=0.4, r=0.3, s=120.0):
    """x' = x + k·(room − x) + w, w ~ N(0, q²);  z = s·x/(s + x) + v, v ~ N(0, r²); prior N(85, 4²)."""
    return StateSpaceModel(
        name="tea",
        transition=lambda x, w, step, u: x + k * (room - x) + w,
        process_noise=Normal(0.0, q),
        prior=Normal(85.0, 4.0),
        sampler=Sampler(lambda x, v: s * x / (s + x) + v, (Normal(0.0, r),)),
        kernel=Kernel("gaussian", lambda x: (s * x / (s + x), r + 0.0 * x)),
        additive_noise=True,
        params=(k, room, q, r, s),
    )
