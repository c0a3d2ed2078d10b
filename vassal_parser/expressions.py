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
(`Unsupported`); each property it names costs the caller one lookup. Each text is compiled to
closures once (`_compiled`, a bounded table): a save repeats a few hundred over thousands of pieces.
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


Node = Callable[[Lookup], Value]  # a compiled (sub)expression: its value given the piece's lookup


class _Compiler:
    """Recursive descent over the tokens, compiling each (sub)expression to a closure once per
    expression text (`_compiled`); evaluating is calling it with a piece's lookup. Both arguments
    of `If` are evaluated (BeanShell evaluates a method's arguments); `?:`, `&&` and `||` evaluate
    only what Java does."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise Unsupported("expression ends early")
        self.index += 1
        return self.tokens[self.index - 1]

    def accept(self, op: str) -> bool:
        found = self.peek() == ("op", op)
        self.index += found
        return found

    def expect(self, op: str) -> None:
        if not self.accept(op):
            raise Unsupported(f"expected {op!r}")

    def operator(self, choices: tuple[str, ...]) -> str | None:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] in choices:
            self.index += 1
            return token[1]
        return None

    # -- grammar, lowest precedence first --
    def expression(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("expression nests too deep")
        try:
            return self.ternary()
        finally:
            self.depth -= 1

    def ternary(self) -> Node:
        condition = self.logical_or()
        if not self.accept("?"):
            return condition
        first = self.expression()
        self.expect(":")
        second = self.expression()

        def choose(lookup: Lookup) -> Value:
            chosen = condition(lookup)
            if not isinstance(chosen, bool):
                raise Unsupported("?: on a value that is not a boolean")
            return first(lookup) if chosen else second(lookup)

        return choose

    def logical_or(self) -> Node:
        left = self.logical_and()
        while self.accept("||"):
            left = _logic(left, self.logical_and(), True)
        return left

    def logical_and(self) -> Node:
        left = self.binary_level(("==", "!="), self.relational)
        while self.accept("&&"):
            left = _logic(left, self.binary_level(("==", "!="), self.relational), False)
        return left

    def relational(self) -> Node:
        return self.binary_level(("<", ">", "<=", ">="), self.additive)

    def additive(self) -> Node:
        return self.binary_level(("+", "-"), self.multiplicative)

    def multiplicative(self) -> Node:
        return self.binary_level(("*", "/", "%"), self.unary)

    def binary_level(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        left = operand()
        while True:
            op = self.operator(ops)
            if op is None:
                return left
            left = _binary_node(op, left, operand())

    def unary(self) -> Node:
        op = self.operator(("!", "-", "+"))
        if op is None:
            return self.postfix()
        inner = self.unary()

        def apply(lookup: Lookup) -> Value:
            value = inner(lookup)
            if op == "!":
                if not isinstance(value, bool):
                    raise Unsupported("! on a value that is not a boolean")
                return not value
            if isinstance(value, bool) or not isinstance(value, int):
                raise Unsupported(f"{op} on a value that is not an int")
            return _java_int(-value) if op == "-" else value

        return apply

    def postfix(self) -> Node:
        node = self.primary()
        while self.accept("."):
            kind, method = self.take()
            if kind != "name":
                raise Unsupported("a field or method name expected after '.'")
            node = _method_node(node, method, self.arguments())
        return node

    def arguments(self) -> list[Node]:
        self.expect("(")
        nodes: list[Node] = []
        if self.accept(")"):
            return nodes
        while True:
            nodes.append(self.expression())
            if self.accept(")"):
                return nodes
            self.expect(",")

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "number":
            if not text.isdigit() or int(text) > _INT_MAX:
                raise Unsupported(f"{text} is not an int literal")
            return _constant(int(text))
        if kind == "string":
            return _constant(re.sub(r"\\(.)", lambda m: _escape(m.group(1)), text[1:-1]))
        if kind == "op":
            if text == "(":
                node = self.expression()
                self.expect(")")
                return node
            raise Unsupported(f"unexpected {text!r}")
        if text in ("true", "false"):
            return _constant(text == "true")
        following = self.peek()
        if following == ("op", "("):
            return _function_node(text, self.arguments())
        if text == "Math" and following == ("op", "."):
            self.index += 1
            _kind, method = self.take()
            return _math_node(method, self.arguments())
        if text in ("null", "new", "this", "super", "instanceof", "void"):
            raise Unsupported(f"{text} is not read")
        return _variable_node(text, as_string=following == ("op", "."))


def _constant(value: Value) -> Node:
    return lambda _lookup: value


def _property(lookup: Lookup, name: str) -> str | None:
    if name in _VIEWER_PROPERTIES:
        raise Unsupported(f"{name} depends on who looks")
    return lookup(name)


def _variable_node(name: str, as_string: bool) -> Node:
    """A property named as a variable; one used as a String method's receiver is passed as a String
    (ExpressionInterpreter's `stringVariables`), others bound as `bind_variable` says."""
    if len(name) > 2 and name.startswith("$") and name.endswith("$"):
        name = name[1:-1]
    if as_string:
        return lambda lookup: _property(lookup, name) or ""
    return lambda lookup: bind_variable(_property(lookup, name))


def _logic(left: Node, right: Node, is_or: bool) -> Node:
    def apply(lookup: Lookup) -> Value:
        first = left(lookup)
        if first is is_or:  # true || ..., false && ...: the right side is not evaluated
            return first
        second = right(lookup)
        if not (isinstance(first, bool) and isinstance(second, bool)):
            raise Unsupported("|| or && on a value that is not a boolean")
        return (first or second) if is_or else (first and second)

    return apply


def _binary_node(op: str, left: Node, right: Node) -> Node:
    return lambda lookup: _binary(op, left(lookup), right(lookup))


def _function_node(name: str, arguments: list[Node]) -> Node:
    if name == "If" and len(arguments) == 3:
        condition, first, second = arguments

        def choose(lookup: Lookup) -> Value:
            values = (condition(lookup), first(lookup), second(lookup))
            if not isinstance(values[0], bool):
                raise Unsupported("If on a value that is not a boolean")
            return values[1] if values[0] else values[2]

        return choose
    if name == "GetProperty" and len(arguments) == 1:
        (argument,) = arguments
        return lambda lookup: _wrap(_property(lookup, _text(argument(lookup))))
    raise Unsupported(f"function {name} is not read")


def _math_node(method: str, arguments: list[Node]) -> Node:
    if not ((method in ("min", "max") and len(arguments) == 2) or (method == "abs" and len(arguments) == 1)):
        raise Unsupported(f"Math.{method} is not read")

    def apply(lookup: Lookup) -> Value:
        values = [argument(lookup) for argument in arguments]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise Unsupported(f"Math.{method} of values that are not ints")
        numbers = [int(v) for v in values]
        if method == "abs":
            return _java_int(abs(numbers[0]))
        return min(numbers) if method == "min" else max(numbers)

    return apply


def _method_node(receiver: Node, method: str, arguments: list[Node]) -> Node:
    return lambda lookup: _string_method(receiver(lookup), method, [a(lookup) for a in arguments])


_PREDICATES: dict[str, Callable[[str, str], bool]] = {
    "contains": str.__contains__, "equals": str.__eq__, "startsWith": str.startswith,
    "endsWith": str.endswith}


def _string_method(receiver: Value, method: str, arguments: list[Value]) -> Value:
    if not isinstance(receiver, str) or not all(isinstance(a, str) for a in arguments):
        raise Unsupported(f".{method} on or with a value that is not a string")
    texts = [str(a) for a in arguments]
    count = len(texts)
    if method in _PREDICATES and count == 1:
        return _PREDICATES[method](receiver, texts[0])
    if method == "isEmpty" and count == 0:
        return receiver == ""
    if method == "length" and count == 0 and receiver.isascii():
        return len(receiver)
    if method == "indexOf" and count == 1 and receiver.isascii() and texts[0].isascii():
        return receiver.find(texts[0])
    raise Unsupported(f"String.{method} is not read")


def _binary(op: str, left: Value, right: Value) -> Value:
    """bsh.BSHBinaryExpression with VASSAL's patches, for the value kinds read here."""
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
    return _text(_compiled(expression)(lookup))


_COMPILED: dict[str, Node | Unsupported] = {}
_COMPILED_LIMIT = 4096


def forget_compiled() -> None:
    """Empty the table of compiled expressions (`traits.forget_shared_traits` does, for cold timings)."""
    _COMPILED.clear()


def _compiled(expression: str) -> Node:
    """The closure of an expression text, compiled once (a save repeats a few hundred texts over
    thousands of pieces); one that cannot be read raises `Unsupported` each time it is asked."""
    found = _COMPILED.get(expression)
    if found is None:
        try:
            if len(expression) > MAX_LENGTH:
                raise Unsupported("expression too long")
            compiler = _Compiler(_tokens(expression))
            node = compiler.expression()
            if compiler.peek() is not None:
                raise Unsupported(f"cannot read {compiler.peek()!r}")
            found = node
        except Unsupported as error:
            found = error
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
        _COMPILED[expression] = found
    if isinstance(found, Unsupported):
        raise Unsupported(str(found))
    return found
