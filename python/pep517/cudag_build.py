# SPDX-License-Identifier: Apache-2.0
"""cudag's PEP 517 build backend: scikit-build-core's, with two things added to the wheel
it builds, so that `pip wheel .` gives the wheel users install, with no script after it:

* its manylinux tag (PEP 600): python/bundle_libs.cmake has copied the libraries beyond
  the manylinux allow-list into cudag_learn.libs/; cudag_wheel.retag reads the ELF files
  and names the wheel manylinux_2_y_<arch> from the newest glibc symbol version they need
  (what auditwheel's "repair" names it, without auditwheel, patchelf or docker: an offline
  build with --no-build-isolation needs nothing beyond scikit-build-core and nanobind);
* a variant (-Ccudag.variant=cu13, or CUDAG_WHEEL_VARIANT=cu13 in the environment): the CUDA
  engines built in, the distribution named cudag-learn-cu13, the CUDA runtime taken from
  NVIDIA's nvidia-cuda-runtime wheel (a dependency; libcudart.so.13 is left out of the
  wheel and found through an RPATH into that wheel's nvidia/cu13/lib), as CuPy and RAPIDS
  do. The default (cpu, or unset) is cudag-learn as pyproject.toml says.

A wheel built with -Ccmake.define.CUDAG_WHEEL_BUNDLE=OFF links the system's libraries and
keeps the linux_<arch> tag; -Ccudag.tag=linux keeps it too. The cudag.* settings are this
backend's own and are not passed on to scikit-build-core (which refuses settings it does
not know); every other hook is scikit-build-core's.
"""
import os

from scikit_build_core import build as _skbuild

import cudag_wheel

# variant -> (distribution name, CMake definitions, Requires-Dist added, libraries left out
# of the wheel because a dependency brings them).
VARIANTS = {
    "cpu": (None, {}, (), ()),
    "cu13": ("cudag-learn-cu13",
             {"CUDAG_ENABLE_CUDA": "ON", "CUDAG_WHEEL_CUDA_RUNTIME": "cu13"},
             ("nvidia-cuda-runtime<14,>=13.0",),
             ("libcudart.so.13",)),
}


def _own(config_settings):
    """(variant, tag) from the cudag.* settings and the environment; the rest for skbuild."""
    settings = dict(config_settings or {})
    variant = settings.pop("cudag.variant", None) or os.environ.get("CUDAG_WHEEL_VARIANT") or "cpu"
    tag = settings.pop("cudag.tag", "manylinux")
    for key in [k for k in settings if k.startswith("cudag.")]:
        raise ValueError(f"cudag build backend: unknown setting {key} (cudag.variant, cudag.tag)")
    if variant not in VARIANTS:
        raise ValueError(f"cudag build backend: cudag.variant={variant}: one of {', '.join(VARIANTS)}")
    if tag not in ("manylinux", "linux"):
        raise ValueError(f"cudag build backend: cudag.tag={tag}: manylinux or linux")
    _, defines, _, _ = VARIANTS[variant]
    for name, value in defines.items():
        key = f"cmake.define.{name}"
        if key in settings and str(settings[key]).upper() != value.upper():
            raise ValueError(f"cudag build backend: cudag.variant={variant} needs {key}={value}")
        settings[key] = value
    bundle = str(settings.get("cmake.define.CUDAG_WHEEL_BUNDLE", "ON")).upper()
    if bundle in ("OFF", "0", "FALSE", "NO"):
        tag = "linux"
    return variant, tag, settings


def _rename_metadata(directory, info_dir, variant):
    name, _, requires, _ = VARIANTS[variant]
    if not name:
        return info_dir
    path = os.path.join(directory, info_dir, "METADATA")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(cudag_wheel.rewrite_metadata(text, name, requires))
    new_dir = cudag_wheel.normalise(name) + info_dir[info_dir.index("-"):]
    os.replace(os.path.join(directory, info_dir), os.path.join(directory, new_dir))
    return new_dir


def get_requires_for_build_wheel(config_settings=None):
    return _skbuild.get_requires_for_build_wheel(_own(config_settings)[2])


def get_requires_for_build_editable(config_settings=None):
    return _skbuild.get_requires_for_build_editable(_own(config_settings)[2])


def get_requires_for_build_sdist(config_settings=None):
    return _skbuild.get_requires_for_build_sdist(_own(config_settings)[2])


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    variant, _, settings = _own(config_settings)
    info_dir = _skbuild.prepare_metadata_for_build_wheel(metadata_directory, settings)
    return _rename_metadata(metadata_directory, info_dir, variant)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    variant, _, settings = _own(config_settings)
    info_dir = _skbuild.prepare_metadata_for_build_editable(metadata_directory, settings)
    return _rename_metadata(metadata_directory, info_dir, variant)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    variant, tag, settings = _own(config_settings)
    # The metadata folder pip prepared (renamed above) is not handed on: scikit-build-core
    # writes its own, which retag renames the same way.
    built = _skbuild.build_wheel(wheel_directory, settings, None)
    name, _, requires, external = VARIANTS[variant]
    try:
        path = cudag_wheel.retag(os.path.join(wheel_directory, built), external, name, requires,
                                 tag=(tag == "manylinux"))
    except cudag_wheel.WheelError as e:
        raise RuntimeError(f"cudag build backend: {e}") from None
    return os.path.basename(path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    variant, _, settings = _own(config_settings)
    built = _skbuild.build_editable(wheel_directory, settings, None)
    name, _, requires, _ = VARIANTS[variant]
    if not name:
        return built
    return os.path.basename(cudag_wheel.retag(os.path.join(wheel_directory, built), (), name, requires, tag=False))


def build_sdist(sdist_directory, config_settings=None):
    return _skbuild.build_sdist(sdist_directory, _own(config_settings)[2])
