"""A new unit's id follows the style of the project's ids (u01…u04 → u05, not u005)."""

from annotator.evaluation.forms import next_unit_id


def test_a_new_unit_id_follows_the_projects_ids():
    assert next_unit_id(["u01", "u02", "u03", "u04"]) == "u05"
    assert next_unit_id(["u009"]) == "u010"
    assert next_unit_id(["A-7", "A-8", "free text"]) == "A-9"
    assert next_unit_id(["12", "13"]) == "14"
    assert next_unit_id([]) == "u001"
    assert next_unit_id(["u01", "u03"]) == "u04"  # after the highest, never a gap's number reused
