"""The judgements a scenario may name in its ``judgements:`` (harness.judge.grade's registry holds what each one
does): their ids alone, so that reading a scenario does not load the graders. tests/test_grade.py holds them equal
to the registry's judgements that are not ``everywhere``."""

__all__ = ["SCENARIO_JUDGEMENTS"]

SCENARIO_JUDGEMENTS = ("finish-reason-on-end-turn", "retry-throttled-request")
