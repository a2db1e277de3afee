"""Answer models leave their empty lists out on the wire and get them back when read."""

from __future__ import annotations

from code_intel.core.session_types import CommitReport
from code_intel.verify.models import CommandOutcome


def test_empty_lists_are_left_out_and_come_back_on_reading() -> None:
    report = CommitReport(committed=True, commit="abc", committed_files=["src/app.py"])
    assert report.model_dump(mode="json", exclude_none=True) == {
        "committed": True, "commit": "abc", "committed_files": ["src/app.py"]}
    assert CommitReport.model_validate_json(report.model_dump_json()) == report
    with_warning = report.model_copy(update={"warnings": ["kept the user's edit"]})
    assert with_warning.model_dump()["warnings"] == ["kept the user's edit"]  # a list with something in it stays
    passed = CommandOutcome(name="pytest", command="pytest -q", verdict="passed", exit_code=0, tail="3 passed")
    assert not {"failing_tests", "excerpt"} & set(passed.model_dump())
    assert CommandOutcome.model_validate(passed.model_dump()).failing_tests == []


def test_the_output_schema_still_lists_the_fields() -> None:
    """The serializer must not replace the models' output schemas (tools/list) with a bare object."""
    for model, fields in ((CommitReport, {"committed_files", "discarded_files", "warnings"}),
                          (CommandOutcome, {"failing_tests", "excerpt", "tail"})):
        assert fields <= set(model.model_json_schema(mode="serialization")["properties"])
