"""VASSAL's BeanShell expressions (`{...}`), the subset whose value follows from a piece's properties.

Why: a Calculated Property (`calcProp;`) answers its name with the value of an expression, and label
and name formats read such properties (`$SideName$` with `SideName = {If(CounterLayer == 1,
"CONFEDERATE", "UNION")}`): without the expression the name VASSAL shows cannot be told.

What is read (VASSAL's ExpressionInterpreter and its patched BeanShell, `bsh.BSHBinaryExpression`,
`bsh.Primitive`): literals (int, string, true/false), property names (a `$name$` too) bound as
VASSAL binds them (null -> "", "true"/"false" -> boolean, an int -> int, else the string; one used
as a String method's receiver stays a string), `GetProperty(name)` (`wrap`: boolean, int or
string), `If(c, a, b)`, `?:`, `|| && ! == != < <= > >= + - * / %` with VASSAL's coercions (int with
"" reads "" as 0; a number with a string compares or joins as strings; strings compare with
`compareTo`), `Math.min/max/abs`, and the String methods `contains equals startsWith endsWith
length isEmpty indexOf`. Ints are Java's: 32 bits, division truncates.

Anything else — floats, other functions (CountStack, SumLocation...), properties Adjutant cannot
know (the viewer's side) — raises `Unsupported`: the value is unknown, never guessed. What VASSAL
itself fails on (division by zero) raises `Failed`: VASSAL's `tryEvaluate` answers "".

Caps: an expression over `MAX_LENGTH` characters or nesting deeper than `MAX_DEPTH` is not read
(`Unsupported`); each property it names costs the caller one lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_LENGTH = 4000
MAX_DEPTH = 64

Value = int | bool | str
Lookup = Callable[[str], "str | None"]


class Unsupported(Exception):
    """The expression uses what Adjutant does not evaluate: its value is unknown."""


class Failed(Exception):
    """VASSAL's evaluation fails too (an ExpressionException): the property's value is ""."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[fFdDlL]?)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
      | (?P<op>\|\||&&|==|!=|<=|>=|[-+*/%<>!?:(),.])
    )""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
# properties whose value depends on who looks (GameModule.getProperty): never known to a file reader
_VIEWER_PROPERTIES = frozenset(
    ("PlayerSide", "playerSide", "PlayerName", "playerName", "PlayerId", "playerId"))


def _tokens(text: str) -> list[tuple[str, str]]:
    result: list[tuple[str, str]] = []
    position, end = 0, len(text)
    while position < end:
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise Unsupported(f"cannot read {text[position:position + 20]!r}")
        kind = match.lastgroup or ""
        result.append((kind, match.group(kind)))
        position = match.end()
    return result


def _java_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value > _INT_MAX else value


def _text(value: Value) -> str:
    """Java's toString of a value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_int(text: str) -> int | None:
    """Integer.parseInt: optional sign, ASCII digits, in range; else None."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    number = int(text)
    return number if _INT_MIN <= number <= _INT_MAX else None


def bind_variable(value: str | None) -> Value:
    """How ExpressionInterpreter binds a property's value to a variable."""
    if value is None or value == "":
        return ""
    if value == "true":
        return True
    if value == "false":
        return False
    if value.strip("+-.0123456789"):
        return value  # not only number characters: the string
    number = _parse_int(value)
    if number is not None:
        digits = value.lstrip("+-")
        if len(digits) > 1 and digits.startswith("0"):
            # a module option keeps these strings ("Store integers with leading zeros as Strings")
            raise Unsupported(f"{value!r}: int or string depends on a module option")
        return number
    if re.fullmatch(r"[+-]?[0-9]+", value):
        return value  # too big for an int: kept as the string (NumberUtils.createBigInteger)
    try:
        float(value)
    except ValueError:
        return value
    raise Unsupported(f"{value!r} is a float")


def _wrap(value: str | None) -> Value:
    """ExpressionInterpreter.wrap (GetProperty's answer): boolean, Integer.valueOf, else the string."""
    if value is None:
        return ""
    if value in ("true", "false"):
        return value == "true"
    number = _parse_int(value)
    return value if number is None else number


class _Parser:
    """Recursive descent over the tokens, evaluating as it goes (both branches of `If` are
    evaluated, as BeanShell evaluates a method's arguments; `?:`, `&&` and `||` skip as Java does)."""

    def __init__(self, tokens: list[tuple[str, str]], lookup: Lookup) -> None:
        self.tokens = tokens
        self.index = 0
        self.lookup = lookup
        self.depth = 0
        self.skipping = 0  # > 0 while parsing a branch that is not taken

    # -- tokens --
    def peek(self, offset: int = 0) -> tuple[str, str] | None:
        at = self.index + offset
        return self.tokens[at] if at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise Unsupported("expression ends early")
        self.index += 1
        return token

    def accept(self, op: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] == op:
            self.index += 1
            return True
        return False

    def expect(self, op: str) -> None:
        if not self.accept(op):
            raise Unsupported(f"expected {op!r}")

    # -- grammar, lowest precedence first --
    def expression(self) -> Value:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("expression nests too deep")
        try:
            return self.ternary()
        finally:
            self.depth -= 1

    def ternary(self) -> Value:
        condition = self.logical_or()
        if not self.accept("?"):
            return condition
        if not self.skipping and not isinstance(condition, bool):
            raise Unsupported("?: on a value that is not a boolean")
        chosen = bool(condition) if not self.skipping else True
        first = self._branch(not chosen, self.expression)
        self.expect(":")
        second = self._branch(chosen, self.expression)
        return first if chosen else second

    def _branch(self, skip: bool, parse: Callable[[], Value]) -> Value:
        if skip:
            self.skipping += 1
        try:
            return parse()
        finally:
            if skip:
                self.skipping -= 1

    def logical_or(self) -> Value:
        left = self.logical_and()
        while self.accept("||"):
            done = not self.skipping and left is True
            right = self._branch(done, self.logical_and)
            left = True if done else self._logic(left, right, "||")
        return left

    def logical_and(self) -> Value:
        left = self.equality()
        while self.accept("&&"):
            done = not self.skipping and left is False
            right = self._branch(done, self.equality)
            left = False if done else self._logic(left, right, "&&")
        return left

    def _logic(self, left: Value, right: Value, op: str) -> Value:
        if self.skipping:
            return False
        if not (isinstance(left, bool) and isinstance(right, bool)):
            raise Unsupported(f"{op} on a value that is not a boolean")
        return (left or right) if op == "||" else (left and right)

    def equality(self) -> Value:
        left = self.relational()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in ("==", "!="):
                return left
            self.index += 1
            left = self.binary(token[1], left, self.relational())

    def relational(self) -> Value:
        left = self.additive()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in ("<", ">", "<=", ">="):
                return left
            self.index += 1
            left = self.binary(token[1], left, self.additive())

    def additive(self) -> Value:
        left = self.multiplicative()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in ("+", "-"):
                return left
            self.index += 1
            left = self.binary(token[1], left, self.multiplicative())

    def multiplicative(self) -> Value:
        left = self.unary()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in ("*", "/", "%"):
                return left
            self.index += 1
            left = self.binary(token[1], left, self.unary())

    def unary(self) -> Value:
        if self.accept("!"):
            value = self.unary()
            if self.skipping:
                return False
            if not isinstance(value, bool):
                raise Unsupported("! on a value that is not a boolean")
            return not value
        if self.accept("-"):
            value = self.unary()
            if self.skipping:
                return 0
            if isinstance(value, bool) or not isinstance(value, int):
                raise Unsupported("- on a value that is not an int")
            return _java_int(-value)
        if self.accept("+"):
            value = self.unary()
            if not self.skipping and (isinstance(value, bool) or not isinstance(value, int)):
                raise Unsupported("+ on a value that is not an int")
            return value
        return self.postfix()

    def postfix(self) -> Value:
        value = self.primary()
        while self.accept("."):
            kind, method = self.take()
            if kind != "name":
                raise Unsupported("a field or method name expected after '.'")
            arguments = self.arguments()
            value = self.string_method(value, method, arguments)
        return value

    def arguments(self) -> list[Value]:
        self.expect("(")
        values: list[Value] = []
        if self.accept(")"):
            return values
        while True:
            values.append(self.expression())
            if self.accept(")"):
                return values
            self.expect(",")

    def primary(self) -> Value:
        kind, text = self.take()
        if kind == "number":
            if not text.isdigit():
                raise Unsupported(f"{text} is not an int literal")
            number = int(text)
            if number > _INT_MAX:
                raise Unsupported(f"{text} is too big for an int")
            return number
        if kind == "string":
            return re.sub(r"\\(.)", lambda m: _escape(m.group(1)), text[1:-1])
        if kind == "op":
            if text == "(":
                value = self.expression()
                self.expect(")")
                return value
            raise Unsupported(f"unexpected {text!r}")
        # a name: literal, function, Math.x(...), or a property
        if text in ("true", "false"):
            return text == "true"
        following = self.peek()
        if following == ("op", "("):
            return self.function(text, self.arguments())
        if text == "Math" and following == ("op", "."):
            self.index += 1
            kind, method = self.take()
            return self.math(method, self.arguments())
        if text in ("null", "new", "this", "super", "instanceof", "void"):
            raise Unsupported(f"{text} is not read")
        as_string = following == ("op", ".")  # a String method's receiver: passed as a String
        return self.variable(text, as_string)

    # -- values --
    def property_value(self, name: str) -> str | None:
        if self.skipping:
            return ""
        if name in _VIEWER_PROPERTIES:
            raise Unsupported(f"{name} depends on who looks")
        return self.lookup(name)

    def variable(self, name: str, as_string: bool) -> Value:
        if len(name) > 2 and name.startswith("$") and name.endswith("$"):
            name = name[1:-1]
        value = self.property_value(name)
        if as_string:
            return value or ""
        return bind_variable(value)

    def function(self, name: str, arguments: list[Value]) -> Value:
        if name == "If" and len(arguments) == 3:
            if self.skipping:
                return arguments[1]
            if not isinstance(arguments[0], bool):
                raise Unsupported("If on a value that is not a boolean")
            return arguments[1] if arguments[0] else arguments[2]
        if name == "GetProperty" and len(arguments) == 1:
            return _wrap(self.property_value(_text(arguments[0])))
        raise Unsupported(f"function {name} is not read")

    def math(self, method: str, arguments: list[Value]) -> Value:
        if self.skipping:
            return 0
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in arguments):
            raise Unsupported(f"Math.{method} of values that are not ints")
        numbers = [int(a) for a in arguments]
        if method in ("min", "max") and len(numbers) == 2:
            return min(numbers) if method == "min" else max(numbers)
        if method == "abs" and len(numbers) == 1:
            return _java_int(abs(numbers[0]))
        raise Unsupported(f"Math.{method} is not read")

    def string_method(self, receiver: Value, method: str, arguments: list[Value]) -> Value:
        if self.skipping:
            return False
        if not isinstance(receiver, str) or not all(isinstance(a, str) for a in arguments):
            raise Unsupported(f".{method} on or with a value that is not a string")
        texts = [str(a) for a in arguments]
        count = len(texts)
        if method == "contains" and count == 1:
            return texts[0] in receiver
        if method == "equals" and count == 1:
            return receiver == texts[0]
        if method == "startsWith" and count == 1:
            return receiver.startswith(texts[0])
        if method == "endsWith" and count == 1:
            return receiver.endswith(texts[0])
        if method == "isEmpty" and count == 0:
            return receiver == ""
        if method == "length" and count == 0 and receiver.isascii():
            return len(receiver)
        if method == "indexOf" and count == 1 and receiver.isascii() and texts[0].isascii():
            return receiver.find(texts[0])
        raise Unsupported(f"String.{method} is not read")

    def binary(self, op: str, left: Value, right: Value) -> Value:
        if self.skipping:
            return False
        left_number = isinstance(left, int)  # bool is an int in Python: told apart below
        right_number = isinstance(right, int)
        if left_number and right_number:
            if isinstance(left, bool) or isinstance(right, bool):
                if isinstance(left, bool) and isinstance(right, bool) and op in ("==", "!="):
                    return (left == right) == (op == "==")
                # mixed types: VASSAL's BeanShell tries again with both as strings
                return _strings(op, _text(left), _text(right))
            return _ints(op, int(left), int(right))
        if left_number and right == "" and not isinstance(left, bool):
            return _ints(op, int(left), 0)
        if right_number and left == "" and not isinstance(right, bool):
            return _ints(op, 0, int(right))
        return _strings(op, _text(left), _text(right))


def _escape(char: str) -> str:
    if char not in _ESCAPES:
        raise Unsupported(f"string escape \\{char} is not read")
    return _ESCAPES[char]


def _ints(op: str, left: int, right: int) -> Value:
    if op == "+":
        return _java_int(left + right)
    if op == "-":
        return _java_int(left - right)
    if op == "*":
        return _java_int(left * right)
    if op in ("/", "%"):
        if right == 0:
            raise Failed("division by zero")
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return _java_int(quotient) if op == "/" else _java_int(left - quotient * right)
    return {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
            ">": left > right, ">=": left >= right}[op]


def _strings(op: str, left: str, right: str) -> Value:
    """bsh.Primitive.stringBinaryOperation (VASSAL's): + joins, comparisons by compareTo."""
    if op == "+":
        return left + right
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if op in ("<", "<=", ">", ">="):
        if not (left.isascii() and right.isascii()):
            raise Unsupported("compareTo of non-ASCII strings")  # UTF-16 order, not code points
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    raise Unsupported(f"{op} of strings")


def strip_braces(text: str) -> str:
    """BeanShellExpression.strip: `{...}` around the trimmed text is removed; else the text as is."""
    trimmed = text.strip()
    if trimmed.startswith("{") and trimmed.endswith("}"):
        return trimmed[1:-1]
    return text


def evaluate(text: str, lookup: Lookup) -> str:
    """A Calculated Property's value (`BeanShellExpression.createExpression(text, true)` then
    `tryEvaluate`): blank -> "", an int literal -> itself, a single property name (unbraced) -> its
    value or "", else the expression's value as Java's toString writes it. Raises `Unsupported`
    (unknown) or `Failed` (VASSAL answers "")."""
    expression = strip_braces(text)
    if expression.strip() == "":
        return ""
    number = _parse_int(expression)
    if number is not None:
        return str(number)
    name = text.strip()
    if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name):
        # SinglePropertyExpression (the unbraced text a Java identifier): the value, untyped
        if name in _VIEWER_PROPERTIES:
            raise Unsupported(f"{name} depends on who looks")
        return lookup(name) or ""
    if len(expression) > MAX_LENGTH:
        raise Unsupported("expression too long")
    parser = _Parser(_tokens(expression), lookup)
    value = parser.expression()
    if parser.peek() is not None:
        raise Unsupported(f"cannot read {parser.peek()!r}")
    return _text(value)
