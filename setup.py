"""Packaging glue that pyproject.toml cannot express: ship the top-level plugins/ folder.

The shipped fitness plugins are plain files in plugins/, written exactly as a user would write them. A
wheel installs them as the package ``evo_plugins`` so that ``evo.fitness.discover`` finds them after a
non-editable ``pip install .``. Everything else about the project is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["evo", "evo.*"]), "evo_plugins"],
    package_dir={"evo_plugins": "plugins"},
)
