# GENERATED from firmware/include/ux/*.h by scripts/codegen — do not edit by hand.
# Change the source and run `make generate`; tests fail when this file and its source drift apart.
"""ctypes mirrors of the C core's public structs, read from its headers.

Function pointers are plain addresses here (the binding passes them through); a pointer to a struct not
mirrored before it in STRUCTS is opaque (c_void_p). `declare(R)` builds them for the real type R (c_double,
or c_float for the float build)."""

import ctypes as C

STRUCTS = (
    'ux_value',
    'ux_sources',
    'ux_law',
    'ux_rng',
    'ux_workspace',
    'ux_evidence',
    'ux_observation',
    'ux_model_ctx',
    'ux_model_noises',
    'ux_model_code',
    'ux_model',
    'ux_filter_config',
    'ux_joint',
    'ux_joint_filter_config',
    'ux_joint_model_code',
    'ux_joint_model',
)


def declare(R) -> dict[str, type]:
    """{C name: ctypes Structure} of every struct in STRUCTS, for the real type R."""

    class ux_value(C.Structure):
        _fields_ = [
            ('count', C.c_uint32),
            ('eta', C.c_uint32),
            ('sources', C.c_uint64),
            ('x', R * 64),
            ('w', R * 64),
        ]

    class ux_sources(C.Structure):
        _fields_ = [
            ('next', C.c_uint32),
        ]

    class ux_law(C.Structure):
        _fields_ = [
            ('kind', C.c_int),
            ('a', R),
            ('b', R),
            ('c', R),
        ]

    class ux_rng(C.Structure):
        _fields_ = [
            ('s', C.c_uint64 * 4),
        ]

    class ux_workspace(C.Structure):
        _fields_ = [
            ('mem', C.c_void_p),
            ('bytes', C.c_size_t),
        ]

    class ux_evidence(C.Structure):
        _fields_ = [
            ('z', C.POINTER(R)),
            ('omega', C.POINTER(R)),
            ('count', C.c_uint),
            ('m', C.c_uint),
        ]

    class ux_observation(C.Structure):
        _fields_ = [
            ('form', C.c_int),
            ('ctx', C.c_void_p),
            ('family', C.c_int),
            ('kernel', C.c_void_p),
            ('inner', C.POINTER(ux_value)),
            ('sampler', C.c_void_p),
            ('noise', C.POINTER(C.POINTER(ux_value))),
            ('n_noise', C.c_uint),
            ('eta', C.c_uint),
            ('kernel_row', C.c_void_p),
            ('innovation', C.c_void_p),
        ]

    class ux_model_ctx(C.Structure):
        _fields_ = [
            ('params', C.POINTER(R)),
            ('k', C.c_uint32),
            ('u', R),
            ('step', R * 4),
        ]

    class ux_model_noises(C.Structure):
        _fields_ = [
            ('process', ux_law),
            ('n_inner', C.c_uint),
            ('inner', ux_law),
            ('n_noise', C.c_uint),
            ('noise', ux_law * 2),
        ]

    class ux_model_code(C.Structure):
        _fields_ = [
            ('transition', C.c_void_p),
            ('noises', C.c_void_p),
            ('family', C.c_int),
            ('kernel', C.c_void_p),
            ('sampler', C.c_void_p),
            ('prepare', C.c_void_p),
            ('additive_noise', C.c_int),
            ('kernel_row', C.c_void_p),
        ]

    class ux_model(C.Structure):
        _fields_ = [
            ('id', C.c_uint8),
            ('name', C.c_char_p),
            ('title', C.c_char_p),
            ('n_params', C.c_uint8),
            ('param_names', C.POINTER(C.c_char_p)),
            ('defaults', C.POINTER(R)),
            ('domains', C.POINTER(C.c_uint8)),
            ('prior', ux_law),
            ('code', C.POINTER(ux_model_code)),
        ]

    class ux_filter_config(C.Structure):
        _fields_ = [
            ('model', C.POINTER(ux_model)),
            ('params', C.POINTER(C.c_double)),
            ('eta', C.c_uint),
            ('mode', C.c_int),
            ('likelihood', C.c_int),
            ('prior', C.POINTER(ux_law)),
        ]

    class ux_joint(C.Structure):
        _fields_ = [
            ('count', C.c_uint32),
            ('eta', C.c_uint32),
            ('dim', C.c_uint32),
            ('sources', C.c_uint64),
            ('x', R * 256),
            ('w', R * 64),
        ]

    class ux_joint_filter_config(C.Structure):
        _fields_ = [
            ('model', C.c_void_p),
            ('params', C.POINTER(C.c_double)),
            ('eta', C.c_uint),
            ('mode', C.c_int),
            ('prior', C.POINTER(ux_law)),
        ]

    class ux_joint_model_code(C.Structure):
        _fields_ = [
            ('dim_noise', C.c_uint),
            ('dim_obs', C.c_uint),
            ('transition', C.c_void_p),
            ('noises', C.c_void_p),
            ('family', C.c_int),
            ('kernel', C.c_void_p),
            ('prepare', C.c_void_p),
            ('additive_noise', C.c_int),
        ]

    class ux_joint_model(C.Structure):
        _fields_ = [
            ('id', C.c_uint8),
            ('name', C.c_char_p),
            ('title', C.c_char_p),
            ('n_params', C.c_uint8),
            ('param_names', C.POINTER(C.c_char_p)),
            ('defaults', C.POINTER(R)),
            ('domains', C.POINTER(C.c_uint8)),
            ('dim', C.c_uint8),
            ('prior', ux_law * 4),
            ('code', C.POINTER(ux_joint_model_code)),
        ]

    return {'ux_value': ux_value, 'ux_sources': ux_sources, 'ux_law': ux_law, 'ux_rng': ux_rng, 'ux_workspace': ux_workspace, 'ux_evidence': ux_evidence, 'ux_observation': ux_observation, 'ux_model_ctx': ux_model_ctx, 'ux_model_noises': ux_model_noises, 'ux_model_code': ux_model_code, 'ux_model': ux_model, 'ux_filter_config': ux_filter_config, 'ux_joint': ux_joint, 'ux_joint_filter_config': ux_joint_filter_config, 'ux_joint_model_code': ux_joint_model_code, 'ux_joint_model': ux_joint_model}
