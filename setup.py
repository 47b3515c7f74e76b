"""The build hook: the top-level suites/ and cassettes/ (the source of truth) go into the wheel as the package's
shipped suite, ``harness/shipped/{suites,cassettes}``; nothing is copied in the checkout itself."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("suites", "cassettes")


class BuildWithSuite(build_py):
    """build_py, plus the shipped suite copied into the build tree (an editable install reads the checkout)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in SHIPPED:
            target = Path(self.build_lib) / "harness" / "shipped" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / name, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))


setup(cmdclass={"build_py": BuildWithSuite})
