"""Package layout. The repository's top-level folders are the subpackages of ``hiddenhand`` (the
user's design card); everything below them is found by discovery, so a new game's folder is packaged
with no list to edit. Metadata and dependencies are in pyproject.toml."""

from setuptools import find_namespace_packages, setup

ROOTS = {
    "hiddenhand": "hiddenhand",
    "hiddenhand.envs": "envs",
    "hiddenhand.agents": "agents",
    "hiddenhand.training": "training",
    "hiddenhand.configs": "configs",
    "hiddenhand.benchmarks": "benchmarks",
}


def packages() -> list[str]:
    found = []
    for package, folder in ROOTS.items():
        found.append(package)
        found += [f"{package}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]
    return found


setup(packages=packages(), package_dir=ROOTS)
