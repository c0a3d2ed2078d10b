"""Rule 6.1 War & Peace Segment: declarations of war (6.1.1) and Truce reductions (6.1.2)."""

from __future__ import annotations

from tests.rules.builder import Position


def rules_of(position: Position) -> list[tuple[str, str]]:
    return [(v.rule, v.text) for v in position.plan().violations]


def test_6_1_1_no_declaration_in_pre_war():
    position = Position("Axis", war_state="Pre-War").country("Germany", "Axis")
    position.action(type="declare_war", faction="Axis", target="Norway", activated_as="Western")
    violations = rules_of(position)
    assert violations and violations[0][0] == "6.1.1" and "Pre-War" in violations[0][1]


def test_6_1_1_allied_declaration_in_limited_war_but_axis_is_fine():
    position = Position("Western", war_state="Limited War")
    position.action(type="declare_war", faction="Western", target="Norway", activated_as="Axis")
    assert any("Limited War" in t for _, t in rules_of(position))
    position = Position("Axis", war_state="Limited War")
    position.action(type="declare_war", faction="Axis", target="Norway", activated_as="Western")
    assert rules_of(position) == []


def test_6_1_1_whom_each_side_may_declare_on():
    position = Position("Axis", war_state="Total War")
    position.action(type="declare_war", faction="Axis", target="Britain", activated_as="Western")
    assert any("Major Country" in t for _, t in rules_of(position))
    position = Position("Axis", war_state="Total War")
    position.action(type="declare_war", faction="Axis", target="Norway", activated_as="Western", was="active")
    assert any("only Neutral Minor Countries" in t for _, t in rules_of(position))
    position = Position("Western", war_state="Total War")
    position.action(type="declare_war", faction="Western", target="Norway", activated_as="Western")
    assert any("activated as an Axis Country" in t for _, t in rules_of(position))


def test_6_1_1_no_occupation_marker_only_for_axis_activation_in_its_capital():
    position = Position("Western", war_state="Total War")
    position.action(
        type="declare_war",
        faction="Western",
        target="Norway",
        activated_as="Axis",
        no_occupation_marker=True,
        no_occupation_hex="w4624",
    )
    assert rules_of(position) == []
    position = Position("Axis", war_state="Total War")
    position.action(
        type="declare_war", faction="Axis", target="Norway", activated_as="Western", no_occupation_marker=True
    )
    assert any("14.24" in t for _, t in rules_of(position))


def test_6_1_only_the_phasing_faction_acts():
    position = Position("Axis", war_state="Total War")
    position.action(type="declare_war", faction="Soviet", target="Norway", activated_as="Axis")
    assert (
        "6.1",
        "action by Soviet, but only the phasing faction (Axis) acts in its War & Peace Segment",
    ) in rules_of(position)


def truce(seasonal: bool) -> Position:
    return (
        Position("Axis", war_state="Total War", seasonal=seasonal)
        .country("Britain", "Western", markers=["Negotiation"])
        .country("USA", "Western", markers=["Negotiation"])
        .country("Russia", "Soviet", markers=["Armistice"])
    )


def test_6_1_2_example_non_seasonal_armistice_cannot_be_reduced():
    position = truce(False)
    position.action(
        type="reduce_truce",
        faction="Axis",
        affecting="Soviet",
        markers=[{"country": "Russia", "from": "Armistice"}],
    )
    position.data["countries"]["Russia"]["markers"] = ["Negotiation"]
    assert any("Non-seasonal" in t for _, t in rules_of(position))


def test_6_1_2_example_both_negotiation_markers_must_be_reduced_together():
    position = truce(False)
    position.data["countries"]["Britain"]["markers"] = []
    position.action(
        type="reduce_truce",
        faction="Axis",
        affecting="Western",
        markers=[{"country": "Britain", "from": "Negotiation"}],
    )
    violations = rules_of(position)
    assert any("Negotiation in USA's Posture Box was not reduced" in t for _, t in violations)
    position = truce(False)
    position.data["countries"]["Britain"]["markers"] = []
    position.data["countries"]["USA"]["markers"] = []
    position.action(
        type="reduce_truce",
        faction="Axis",
        affecting="Western",
        markers=[{"country": "Britain", "from": "Negotiation"}, {"country": "USA", "from": "Negotiation"}],
    )
    assert rules_of(position) == []


def test_6_1_2_seasonal_reduction_and_who_may_reduce():
    position = truce(True)
    position.data["countries"]["Russia"]["markers"] = ["Negotiation"]  # Armistice flipped
    position.action(
        type="reduce_truce",
        faction="Axis",
        affecting="Soviet",
        markers=[{"country": "Russia", "from": "Armistice"}],
    )
    assert rules_of(position) == []
    position = Position("Western", war_state="Total War", seasonal=True).country("Russia", "Soviet")
    position.action(
        type="reduce_truce",
        faction="Western",
        affecting="Soviet",
        markers=[{"country": "Russia", "from": "Armistice"}],
    )
    assert any("its own faction only" in t for _, t in rules_of(position))


def test_6_1_2_truce_markers_are_reduced_by_one_level_only():
    """6.1.2: "reduce all Truce markers affecting an Allied faction by one level" -- never twice."""
    position = truce(True)
    position.data["countries"]["Russia"]["markers"] = []  # Armistice -> Negotiation -> removed
    for was in ("Armistice", "Negotiation"):
        marker = {"country": "Russia", "from": was}
        position.action(type="reduce_truce", faction="Axis", affecting="Soviet", markers=[marker])
    assert any(rule == "6.1.2" and "one level" in t for rule, t in rules_of(position))
    position = truce(True)
    position.data["countries"]["Russia"]["markers"] = []
    position.action(
        type="reduce_truce",
        faction="Axis",
        affecting="Soviet",
        markers=[{"country": "Russia", "from": "Armistice"}, {"country": "Russia", "from": "Negotiation"}],
    )
    assert any(rule == "6.1.2" and "one level" in t for rule, t in rules_of(position))
