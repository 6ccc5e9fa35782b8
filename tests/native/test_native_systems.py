"""The one system table, seen from both sides: the C registry (generated into systems_table.c) and the
reference's `uxemu.systems` (generated into system_table.py) describe the same systems, and every Python
twin takes exactly the table's parameters."""

import ctypes as C
import inspect
import math

import pytest

from uxemu import systems

DOMAIN_CODES = {"real": 0, "positive": 1, "nonnegative": 2}


def test_c_registry_is_the_table(nat):
    c_systems = [nat.lib.ux_model_at(i).contents for i in range(nat.lib.ux_model_count())]
    assert [m.name.decode() for m in c_systems] == systems.names()
    for m in c_systems:
        spec = systems.spec(m.name.decode())
        assert m.id == spec.id and m.title.decode() == spec.title
        assert [m.param_names[i].decode() for i in range(m.n_params)] == list(spec.param_names)
        assert [m.defaults[i] for i in range(m.n_params)] == list(spec.defaults)
        assert [m.domains[i] for i in range(m.n_params)] == [DOMAIN_CODES[p.domain] for p in spec.params]
        law, loc, scale = spec.prior
        assert (m.prior.kind, m.prior.a, m.prior.b) == ({"gaussian": 0, "laplace": 1}[law], loc, scale)


@pytest.mark.parametrize("name", systems.with_twin())
def test_each_twin_takes_the_table_parameters_in_order(name):
    assert tuple(inspect.signature(systems.TWINS[name]).parameters) == systems.spec(name).param_names
    model = systems.get(name)
    assert model.params == systems.spec(name).defaults and model.system_id == systems.spec(name).id


@pytest.mark.parametrize("name", systems.names())
def test_c_and_python_accept_the_same_parameters(nat, name):
    """Each parameter at values inside, on the edge of and outside its domain: the core's check and the
    reference's agree on which is first refused."""
    spec = systems.spec(name)
    model = nat.model(spec.id)
    for i, param in enumerate(spec.params):
        for value in (-1.0, 0.0, 1e-300, 2.5, math.inf, math.nan):
            vector = list(spec.defaults)
            vector[i] = value
            c_first = nat.lib.ux_filter_check_params(model, (C.c_double * len(vector))(*vector))
            assert (c_first == i) == (not param.admits(value)), (param, value)
            assert c_first in (-1, i)


def test_unknown_system_and_parameter_errors_name_what_exists():
    with pytest.raises(ValueError, match="known: sv"):
        systems.spec("thermo")
    with pytest.raises(ValueError, match="has no parameter"):
        systems.get("gss", sigma=1.0)


def test_c_finds_each_system_by_its_table_name(nat):
    for name in systems.names():
        assert nat.lib.ux_model_named(name.encode()).contents.id == systems.spec(name).id
    assert not nat.lib.ux_model_named(b"no-such-system")


def test_every_kernel_row_is_its_kernel_bit_for_bit(nat):
    """A model's optional kernel_row (all inner-noise atoms of one x at once) gives the loc and scale its
    kernel gives atom by atom, bit for bit, at random states, atoms and parameters: the core may call either."""
    import numpy as np

    R = nat.real
    kernel_fn = C.CFUNCTYPE(None, C.POINTER(R), C.c_void_p, C.POINTER(R), C.POINTER(R))
    row_fn = C.CFUNCTYPE(None, R, C.POINTER(R), C.c_size_t, C.c_void_p, C.POINTER(R), C.POINTER(R))
    rng = np.random.default_rng(8)
    rows = 0
    for i in range(nat.lib.ux_model_count()):
        model = nat.lib.ux_model_at(i)
        code = model.contents.code.contents
        if not code.kernel_row:
            continue
        kernel, row = kernel_fn(code.kernel), row_fn(code.kernel_row)
        for trial in range(20):
            params = [model.contents.defaults[p] * rng.uniform(0.5, 2.0) for p in range(model.contents.n_params)]
            preal = (R * len(params))(*params)
            ctx = nat.ModelCtx()
            nat.lib.ux_model_context(model, C.cast(preal, C.POINTER(R)), trial, 0.0, C.byref(ctx))
            pctx = C.cast(C.pointer(ctx), C.c_void_p)
            inner = rng.normal(0, 0.5, 16)
            inner[:2] = (-1.0, -3.0)  # where the location's guard (g ≤ 0) applies
            for x in rng.normal(0, 3, 5):
                loc, scale = (R * 16)(), (R * 16)()
                row(x, (R * 16)(*inner), 16, pctx, loc, scale)
                for j, m in enumerate(inner):
                    l1, s1 = R(), R()
                    kernel((R * 2)(x, m), pctx, C.byref(l1), C.byref(s1))
                    assert (loc[j], scale[j]) == (l1.value, s1.value) or (math.isnan(scale[j]) and math.isnan(s1.value))
                rows += 1
    assert rows > 0  # at least one system (cubic) declares a kernel_row
