"""Packaging: packages are found, the wheel builds without warnings and ships every module and data file the
installed package reads (the shipped prompts and unit tests included); the public entry points exist."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, hang_guard

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_packages_are_found_not_listed():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["include"] == ["judges*"]  # a table to search, not a list


def test_cli_and_pytest_plugin_entry_points():
    project = PYPROJECT["project"]
    assert project["scripts"]["judgelab"] == "judges.cli.main:main"
    assert project["entry-points"]["pytest11"]["judgelab"] == "judges.integrations.pytest_plugin"
    module = project["entry-points"]["pytest11"]["judgelab"].replace(".", "/") + ".py"
    assert (ROOT / module).is_file() and Path(ROOT / "prompts" / "default").is_dir()


# setuptools' build_py run on pyproject.toml's [tool.setuptools] table, offline and with the setuptools installed
# here (a full `pip wheel` would fetch the pinned build backend from the network)
BUILD = """
import pathlib, sys, tomllib
from setuptools import find_namespace_packages, setup
root, out = sys.argv[1:]
table = tomllib.loads(pathlib.Path(root, "pyproject.toml").read_text())["tool"]["setuptools"]
found = table["packages"]["find"]
packages = find_namespace_packages(root, include=found["include"], exclude=found.get("exclude", ()))
print("PACKAGES", " ".join(packages))
setup(
    name="judgelab",
    package_dir={"": root},
    packages=packages,
    package_data=table["package-data"],
    script_args=["-q", "build_py", "--build-lib", out],
)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The package tree a wheel holds, built by setuptools from this checkout, and the build's output."""
    out = tmp_path_factory.mktemp("build")
    built = subprocess.run(
        [sys.executable, "-W", "always", "-c", BUILD, str(ROOT), str(out / "site")],
        capture_output=True,
        text=True,
        cwd=out,  # no pyproject.toml here: only the table passed above configures the build
        timeout=hang_guard(),
    )
    assert built.returncode == 0, built.stderr[-2000:]
    return out / "site", built.stdout + built.stderr


def test_the_wheel_builds_without_a_package_data_warning(wheel):
    site, log = wheel
    # setuptools warns of a data file in a folder that could be imported but is not a package: none is
    packages = set(next(line for line in log.splitlines() if line.startswith("PACKAGES ")).split()[1:])
    folders = {".".join(p.parent.relative_to(site).parts) for p in site.rglob("*") if p.is_file() and p.suffix != ".py"}
    assert folders <= packages, sorted(folders - packages)
    assert "absent from the `packages` configuration" not in log  # newer setuptools
    assert "as data is deprecated" not in log  # older setuptools
    assert "judges/_bundled/prompts/compact/answer_relevancy.txt.jinja" not in log


def test_the_wheel_ships_every_module_and_data_file_of_the_checkout(wheel):
    path, _ = wheel
    names = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "judges").rglob("*.py")}
    data = {p.relative_to(ROOT).as_posix() for p in (ROOT / "judges").rglob("*") if p.suffix in (".jinja", ".toml")}
    assert modules | data | {"judges/py.typed"} <= names, sorted(modules | data - names)
    for folder, suffixes in (("prompts", (".jinja",)), ("unit_tests", (".jsonl", ".md"))):
        shipped = {
            f"judges/_bundled/{p.relative_to(ROOT).as_posix()}"
            for p in (ROOT / folder).rglob("*")
            if p.suffix in suffixes and p.parent.name != "multimodal"
        }
        assert shipped and shipped <= names, folder
    # a benchmark's own prompts ship with their licence beside them (LLMBar's, MIT)
    assert {
        f"judges/_bundled/prompts/llmbar/{n}" for n in ("LICENSE", "vanilla/pairwise_preference.txt.jinja")
    } <= names


def test_the_installed_wheel_finds_its_prompts_and_unit_tests(wheel, tmp_path):
    site, _ = wheel
    code = (
        "from judges.files.shipped import bundled_dir\n"
        "from judges.judging.prompts import load_prompt_set\n"
        "from judges.api import load_tests\n"
        "print(bundled_dir('prompts'), len(load_prompt_set('compact').templates), len(load_tests(limit=3)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUDGELAB_DATA")}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={**env, "PYTHONPATH": str(site)}
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == [str(site / "judges" / "_bundled" / "prompts"), "4", "3"]


def test_pytest_is_a_runtime_dependency_so_the_plugin_works_after_the_main_setup():
    """`pip install -e .` alone must bring pytest: the pytest11 plugin is part of the product."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = [d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["dependencies"]]
    assert "pytest" in runtime
    dev = [d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["optional-dependencies"]["dev"]]
    assert "pytest" not in dev and "pytest-timeout" in dev  # a plugin of the tests' own (a hang fails the test)
