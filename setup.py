"""Build hooks that pyproject.toml cannot express (compiled extensions)."""

import platform

from setuptools import Extension, setup


def _c_flags() -> list[str]:
    """GCC/Clang flags; on x86-64 the popcount instruction, which the solver's move ordering uses."""
    flags = ["-O3", "-std=c11"]
    if platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-mpopcnt")
    return flags


setup(
    ext_modules=[
        # The exact Connect Four solver. Optional: without a C compiler plylab still installs,
        # and only Connect Four's oracle reports that its solver is missing.
        Extension(
            "plylab.oracles._connect_four",
            sources=["src/plylab/oracles/_c4/solver.c"],
            extra_compile_args=_c_flags(),
            optional=True,
        )
    ]
)
