"""The unit-test suite: loading tests, conditions, the test types, checks of test files, baselines, scoring."""
