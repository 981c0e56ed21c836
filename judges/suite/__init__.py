"""The unit-test suite: loading tests, conditions, the test types, checks of test files, baselines, scoring."""

# the run kind this package defines, registered as a package's `judgelab.kinds` entry point is (judges.plugins)
KINDS = {"unit_tests": "judges.suite.suite_kind:UNIT_TEST_KIND"}
