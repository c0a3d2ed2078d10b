"""Calculated Property expressions (issue 40): the BeanShell subset `vassal_parser.expressions` reads,
with VASSAL's own bindings and coercions (ExpressionInterpreter, bsh.BSHBinaryExpression,
bsh.Primitive); what it does not read is unknown (`Unsupported`), never guessed."""

from __future__ import annotations

import pytest

from vassal_parser.expressions import Failed, Unsupported, bind_variable, evaluate


def _props(**values: str):
    return lambda key: values.get(key)


@pytest.mark.parametrize(
    ("expression", "values", "expected"),
    [
        ('{If(CounterLayer == 1,"CONFEDERATE", "UNION")}', {"CounterLayer": "1"}, "CONFEDERATE"),
        ('{If(CounterLayer == 1,"CONFEDERATE", "UNION")}', {"CounterLayer": "2"}, "UNION"),
        ("{ShortName}", {"ShortName": "Siena"}, "Siena"),
        ("PieceName", {"PieceName": "Tank"}, "Tank"),  # unbraced identifier: SinglePropertyExpression
        ("{Missing}", {}, ""),  # null binds as ""
        ("Missing", {}, ""),
        ("", {}, ""),
        ("{7}", {}, "7"),
        ('{MyStrength+") (" + MyCmdr + ": " + MyStrategy}',
         {"MyStrength": "0", "MyCmdr": "None", "MyStrategy": "3"}, "0) (None: 3"),
        ('{If(Amount < 0, ""+Amount, "+"+Amount)}', {"Amount": "-2"}, "-2"),
        ('{If(Amount < 0, ""+Amount, "+"+Amount)}', {"Amount": "3"}, "+3"),
        ("{A + B}", {"A": "2", "B": "3"}, "5"),  # ints add
        ("{A + B}", {"A": "2", "B": "x"}, "2x"),  # an int with a string joins as strings
        ("{A + B}", {"A": "2", "B": ""}, "2"),  # "" beside an int reads 0
        ("{A == B}", {"A": "abc", "B": "abc"}, "true"),  # strings compare by value
        ('{(Side == "Guelph") ? 7 : 4}', {"Side": "Ghibelline"}, "4"),
        ("{Flag && Other}", {"Flag": "true", "Other": "false"}, "false"),
        ("{!Flag}", {"Flag": "false"}, "true"),
        ('{GetProperty("Strategic_Will_" + GetProperty("SWSide"))}',
         {"SWSide": "CSA", "Strategic_Will_CSA": "100"}, "100"),
        ('{If(GetProperty("Momentum_"+GetProperty("SWSide"))==1,"UP", "DOWN")}',
         {"SWSide": "USA", "Momentum_USA": "2"}, "DOWN"),
        ('{LocationName.contains("Turn")}', {"LocationName": "Turn 3"}, "true"),
        ("{Code.contains(Part)}", {"Code": "123", "Part": "2x"}, "false"),  # a receiver stays a String
        ('{"Turn " + Math.min(17, Turn + Service)}', {"Turn": "16", "Service": "3"}, "Turn 17"),
        ("{A / B}", {"A": "-7", "B": "2"}, "-3"),  # Java's division truncates
        ("{A % B}", {"A": "-7", "B": "2"}, "-1"),
        ("{A * B}", {"A": "65536", "B": "65536"}, "0"),  # 32-bit ints wrap
        ("{A == B}", {"A": "1", "B": "true"}, "false"),  # int and boolean compare as strings
        ('{Name < "b"}', {"Name": "a"}, "true"),
    ],
)
def test_expression_values_as_vassal_gives_them(expression: str, values: dict[str, str],
                                                 expected: str) -> None:
    assert evaluate(expression, _props(**values)) == expected


@pytest.mark.parametrize(
    ("expression", "values"),
    [
        ("{CountStack()}", {}),  # functions over other pieces are not read
        ("{SumLocation(\"Strength\")}", {}),
        ("{A + 1}", {"A": "1.5"}),  # floats are not read
        ("{PlayerSide}", {}),  # the viewer's side: unknown to a file
        ("PlayerSide", {}),
        ("{A ? 1 : 2}", {"A": "x"}),  # ?: of a value that is not a boolean
        ("{new java.util.Date()}", {}),
        ("{A.foo}", {"A": "x"}),
        ('{"a" - "b"}', {}),
        ("{A}", {"A": "007"}),  # int or string follows a module option
    ],
)
def test_what_is_not_read_is_unknown(expression: str, values: dict[str, str]) -> None:
    with pytest.raises(Unsupported):
        evaluate(expression, _props(**values))


def test_division_by_zero_fails_as_in_vassal() -> None:
    """ExpressionException: CalculatedProperty's tryEvaluate answers "" (the trait reads Failed so)."""
    with pytest.raises(Failed):
        evaluate("{A / 0}", _props(A="4"))


def test_the_unchosen_branch_is_not_looked_up_for_its_value() -> None:
    """`?:` skips its other branch as Java does: an unknown property there does not make it unknown."""
    def lookup(key: str) -> str | None:
        if key == "Unknown":
            raise Unsupported("unknown")
        return {"Flag": "true"}.get(key)

    assert evaluate('{Flag ? "yes" : Unknown}', lookup) == "yes"


def test_bindings_follow_expression_interpreter() -> None:
    assert bind_variable(None) == "" and bind_variable("") == ""
    assert bind_variable("true") is True and bind_variable("false") is False
    assert bind_variable("+5") == 5 and bind_variable("-3") == -3
    assert bind_variable("12345678901234") == "12345678901234"  # too big for an int: a string
    assert bind_variable("1-2") == "1-2"
    assert bind_variable("Siena") == "Siena"


def test_a_long_or_deep_expression_is_capped() -> None:
    with pytest.raises(Unsupported):
        evaluate("{" + "(" * 200 + "1" + ")" * 200 + "}", _props())
    with pytest.raises(Unsupported):
        evaluate("{" + "+".join(["A"] * 3000) + "}", _props(A="1"))
