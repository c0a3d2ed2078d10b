"""The order in which Java's `HashMap<java.awt.Point, V>` iterates its keys.

Why this exists: VASSAL's `RegionGrid` keeps its regions in a `HashMap<Point, Region>` and answers a
point with the first region of *strictly* smallest distance in `keySet()` order, so a point exactly
as far from two region origins gets whichever origin the HashMap visits first (spec §6.8). That
order is a pure function of the keys' hash codes and the order they were put, so it can be worked
out without a JVM: this module replays OpenJDK's `HashMap.putVal`, `resize`, `treeifyBin` and the
red-black `TreeNode` bins (`treeify`, `putTreeVal`, `balanceInsertion`, `split`,
`moveRootToFront`), the parts that decide where an entry sits and in what order `next` links
are followed.

One thing is not knowable: two distinct points with the same 32-bit hash inside a treeified bin
(eight or more entries in one bucket of a table of 64 or more) are ordered by
`System.identityHashCode`, which differs from run to run in Java itself. We take the earlier
point as smaller there (`tieBreakOrder` returning -1); a plain list bin has no such tie.

Public API:
    point_hash(x, y) -> int            (`java.awt.geom.Point2D.hashCode`, a signed 32-bit int)
    iteration_order(points) -> list[(x, y)]   (distinct points, in `keySet()` order)
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterable

_DOUBLE = struct.Struct("<d")
_LONG = struct.Struct("<q")
_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

DEFAULT_CAPACITY = 16  # HashMap's table size on the first put
LOAD_FACTOR = 0.75
TREEIFY_THRESHOLD = 8  # a list bin reaching 9 entries is treeified (or the table grown)
UNTREEIFY_THRESHOLD = 6
MIN_TREEIFY_CAPACITY = 64


def _signed32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def _double_bits(value: int) -> int:
    """`Double.doubleToLongBits((double) value)` as an unsigned 64-bit pattern."""
    return _LONG.unpack(_DOUBLE.pack(float(value)))[0] & _MASK64


def point_hash(x: int, y: int) -> int:
    """`Point2D.hashCode()`: bits(x) ^ bits(y) * 31 (long arithmetic), high word xor low word."""
    bits = (_double_bits(x) ^ ((_double_bits(y) * 31) & _MASK64)) & _MASK64
    return _signed32((bits & _MASK32) ^ (bits >> 32))


def _spread(hash_code: int) -> int:
    """`HashMap.hash`: h ^ (h >>> 16), kept signed (tree bins compare hashes as signed ints)."""
    unsigned = hash_code & _MASK32
    return _signed32(unsigned ^ (unsigned >> 16))


class _Node:
    """A HashMap entry; `tree` marks a `TreeNode` (its bin is a red-black tree)."""

    __slots__ = ("hash", "key", "left", "next", "parent", "prev", "red", "right", "tree")

    def __init__(self, hash_: int, key: tuple[int, int], next_: _Node | None = None) -> None:
        self.hash = hash_
        self.key = key
        self.next = next_
        self.tree = False
        self.left: _Node | None = None
        self.right: _Node | None = None
        self.parent: _Node | None = None
        self.prev: _Node | None = None
        self.red = False


def _rotate_left(root: _Node, p: _Node) -> _Node:
    r = p.right
    if r is None:
        return root
    rl = p.right = r.left
    if rl is not None:
        rl.parent = p
    pp = r.parent = p.parent
    if pp is None:
        root = r
        r.red = False
    elif pp.left is p:
        pp.left = r
    else:
        pp.right = r
    r.left = p
    p.parent = r
    return root


def _rotate_right(root: _Node, p: _Node) -> _Node:
    left = p.left
    if left is None:
        return root
    lr = p.left = left.right
    if lr is not None:
        lr.parent = p
    pp = left.parent = p.parent
    if pp is None:
        root = left
        left.red = False
    elif pp.right is p:
        pp.right = left
    else:
        pp.left = left
    left.right = p
    p.parent = left
    return root


def _balance_insertion(root: _Node, x: _Node) -> _Node:
    """`TreeNode.balanceInsertion` (the usual red-black insert fix-up, step for step)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


def _direction(h: int, other: _Node) -> int:
    """Tree order: by (signed) hash; equal hashes of distinct Points fall to `tieBreakOrder`, whose
    identity hash codes are unknowable — taken as -1 (see the module docstring)."""
    if other.hash > h:
        return -1
    if other.hash < h:
        return 1
    return -1


class _Map:
    """The table of a `HashMap` with default capacity and load factor, keys only."""

    def __init__(self) -> None:
        self.table: list[_Node | None] = []
        self.threshold = 0
        self.size = 0

    # --- HashMap.putVal for a key not yet present ------------------------------------------
    def put_new(self, key: tuple[int, int]) -> None:
        h = _spread(point_hash(*key))
        if not self.table:
            self._resize()
        tab = self.table
        index = (len(tab) - 1) & h
        p = tab[index]
        if p is None:
            tab[index] = _Node(h, key)
        elif p.tree:
            self._put_tree(p, h, key)
        else:
            count = 0
            while p.next is not None:
                p = p.next
                count += 1
            p.next = _Node(h, key)
            if count >= TREEIFY_THRESHOLD - 1:
                self._treeify_bin(h)
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def _resize(self) -> None:
        old = self.table
        old_cap = len(old)
        if old_cap == 0:
            new_cap, self.threshold = DEFAULT_CAPACITY, int(DEFAULT_CAPACITY * LOAD_FACTOR)
        else:
            new_cap, self.threshold = old_cap * 2, self.threshold * 2
        new: list[_Node | None] = [None] * new_cap
        self.table = new
        for j, e in enumerate(old):
            if e is None:
                continue
            if e.next is None:
                new[e.hash & (new_cap - 1)] = e
            elif e.tree:
                self._split(e, j, old_cap)
            else:
                lo: list[_Node] = []
                hi: list[_Node] = []
                while e is not None:
                    (lo if (e.hash & old_cap) == 0 else hi).append(e)
                    e = e.next
                for part, where in ((lo, j), (hi, j + old_cap)):
                    if part:
                        for a, b in itertools.pairwise(part):
                            a.next = b
                        part[-1].next = None
                        new[where] = part[0]

    def _treeify_bin(self, h: int) -> None:
        tab = self.table
        if len(tab) < MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        index = (len(tab) - 1) & h
        e = tab[index]
        prev = None
        head = e
        while e is not None:
            e.tree = True
            e.prev = prev
            prev = e
            e = e.next
        if head is not None:
            self._treeify(head)

    def _treeify(self, head: _Node) -> None:
        """`TreeNode.treeify`: insert the bin's nodes in `next` order, then root to the front."""
        root: _Node | None = None
        x: _Node | None = head
        while x is not None:
            following = x.next
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
            else:
                p = root
                while True:
                    direction = _direction(x.hash, p)
                    xp = p
                    p = p.left if direction <= 0 else p.right
                    if p is None:
                        x.parent = xp
                        if direction <= 0:
                            xp.left = x
                        else:
                            xp.right = x
                        root = _balance_insertion(root, x)
                        break
            x = following
        assert root is not None
        self._move_root_to_front(root)

    def _put_tree(self, first: _Node, h: int, key: tuple[int, int]) -> None:
        """`TreeNode.putTreeVal` for a new key: the new node follows its tree parent in `next` order."""
        root = first
        while root.parent is not None:
            root = root.parent
        p = root
        while True:
            direction = _direction(h, p)
            xp = p
            p = p.left if direction <= 0 else p.right
            if p is None:
                xpn = xp.next
                x = _Node(h, key, xpn)
                x.tree = True
                if direction <= 0:
                    xp.left = x
                else:
                    xp.right = x
                xp.next = x
                x.parent = x.prev = xp
                if xpn is not None:
                    xpn.prev = x
                self._move_root_to_front(_balance_insertion(root, x))
                return

    def _move_root_to_front(self, root: _Node) -> None:
        tab = self.table
        index = (len(tab) - 1) & root.hash
        first = tab[index]
        if root is first:
            return
        tab[index] = root
        rp, rn = root.prev, root.next
        if rn is not None:
            rn.prev = rp
        if rp is not None:
            rp.next = rn
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None

    def _split(self, head: _Node, index: int, bit: int) -> None:
        """`TreeNode.split` on resize: lo/hi lists in `next` order, re-treeified or untreeified."""
        lo: list[_Node] = []
        hi: list[_Node] = []
        e: _Node | None = head
        while e is not None:
            following = e.next
            e.next = None
            (lo if (e.hash & bit) == 0 else hi).append(e)
            e = following
        for part, where, other in ((lo, index, hi), (hi, index + bit, lo)):
            if not part:
                continue
            previous = None
            for node in part:
                node.prev = previous
                if previous is not None:
                    previous.next = node
                previous = node
            self.table[where] = part[0]
            if len(part) <= UNTREEIFY_THRESHOLD:
                for node in part:
                    node.tree = False
                    node.left = node.right = node.parent = node.prev = None
            elif other:
                self._treeify(part[0])

    def keys(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for node in self.table:
            while node is not None:
                out.append(node.key)
                node = node.next
        return out


def iteration_order(points: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Distinct points in the order `new HashMap<>()` with them `put` in this order iterates them.

    A point put again keeps its first place (HashMap replaces the value, not the entry)."""
    table = _Map()
    seen: set[tuple[int, int]] = set()
    for point in points:
        if point in seen:
            continue
        seen.add(point)
        table.put_new(point)
    return table.keys()
