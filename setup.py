"""The build steps pyproject.toml cannot state: the C core compiled into the package, uxbench kept out of it.

- `build_native` runs `make -C firmware host` (firmware/Makefile and sources.mk: the one place the core's
  sources and flags are written, `-ffp-contract=off` included) into the build's temporary folder, and puts
  libux.so and libux_float.so in uxemu/_native/, where uxemu.native looks first. It is the command
  `make native` runs, so an installed package computes the same bits as the checkout's build/native/.
  It also copies library.json (the core's manifest, whose version `uxhost --version` names) beside
  uxhost. Needs `make` and a C compiler (`cc`, or $CC).
- An editable install (`pip install -e .`, what `make venv` does) compiles nothing: the checkout's
  build/native/ serves it, rebuilt by `make native` as the C sources change. It maps uxbench as well,
  which the benchmarks and their tests import from the checkout; a wheel carries uxemu and uxhost only.
- The wheel is tagged py3-none-<platform>: it holds native libraries, loaded through ctypes, so it is tied
  to the platform but to no Python ABI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Command, find_packages, setup
from setuptools.dist import Distribution as _Distribution
from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
from setuptools.command.build import build as _build
from setuptools.command.editable_wheel import editable_wheel as _editable_wheel

ROOT = Path(__file__).resolve().parent
FIRMWARE = ROOT / "firmware"
LIBRARIES = ("libux.so", "libux_float.so", "libuxm.so")
NATIVE_DIR = ("uxemu", "_native")  # inside the package; uxemu.native.PACKAGED_DIR
CORE_MANIFEST = ROOT / "library.json"
DEV_PACKAGES = ("benchmarks", "uxbench")  # (folder, package): mapped by an editable install only


class build_native(Command):
    description = "compile the C core's host libraries (firmware/Makefile's `host`) into uxemu/_native"
    user_options = []

    def initialize_options(self):
        self.build_lib = None
        self.build_temp = None
        self.editable_mode = False

    def finalize_options(self):
        self.set_undefined_options("build", ("build_lib", "build_lib"), ("build_temp", "build_temp"))

    def _outputs(self) -> list[Path]:
        lib = Path(self.build_lib)
        return [lib.joinpath(*NATIVE_DIR, name) for name in LIBRARIES] + [lib / "uxhost" / CORE_MANIFEST.name]

    def run(self):
        if self.editable_mode:
            self.announce("editable install: the native engine is the checkout's build/native/ (make native)", 2)
            return
        objects = Path(self.build_temp).resolve() / "native"
        shutil.rmtree(objects, ignore_errors=True)  # every build compiles the sources as they are now
        command = [os.environ.get("MAKE", "make"), "-C", str(FIRMWARE), "host", f"BUILD={objects}"]
        self.announce(" ".join(command), 2)
        try:
            subprocess.run(command, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise SystemExit(
                f"building the C core failed ({exc}): it needs make and a C compiler "
                "(Debian: apt-get install make gcc)"
            ) from None
        *libraries, manifest = self._outputs()
        for name, target in zip(LIBRARIES, libraries):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(objects / name, target)
        manifest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORE_MANIFEST, manifest)

    def get_outputs(self) -> list[str]:
        return [] if self.editable_mode else [str(p) for p in self._outputs()]

    def get_source_files(self) -> list[str]:
        return [str(CORE_MANIFEST.relative_to(ROOT))]


class build(_build):
    sub_commands = _build.sub_commands + [("build_native", None)]


class Distribution(_Distribution):
    def has_ext_modules(self) -> bool:
        return True  # native libraries inside: platform-specific build and install folders


class bdist_wheel(_bdist_wheel):
    def get_tag(self):
        *_, platform = super().get_tag()
        return "py3", "none", platform


class editable_wheel(_editable_wheel):
    def finalize_options(self):
        dist = self.distribution
        folder, package = DEV_PACKAGES
        have = list(dist.packages or [])
        dev = find_packages(str(ROOT / folder), include=[package, f"{package}.*"])
        dist.packages = have + [p for p in dev if p not in have]
        dist.package_dir = dict(dist.package_dir or {}, **{package: f"{folder}/{package}"})
        super().finalize_options()


setup(
    distclass=Distribution,
    cmdclass={
        "build_native": build_native,
        "build": build,
        "bdist_wheel": bdist_wheel,
        "editable_wheel": editable_wheel,
    },
)
